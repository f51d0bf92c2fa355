import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { type JSONWebKeySet, createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { CONSENT_PROOF_AUDIENCE, CONSENT_PROOF_TYP } from '@mm/contracts';
import { AuthHarness } from './support/auth-harness';

const PIN = '2580';

/** Auth's side of docs/ledger.md "Consent proofs": check-pin / verify-otp with an intentId issue a signed, short-lived proof. */
describe('auth: consent proofs', () => {
  const h = new AuthHarness();
  let keys: ReturnType<typeof createLocalJWKSet>;
  beforeAll(async () => {
    await h.start({ CONSENT_PROOF_TTL_SEC: '90' });
    keys = createLocalJWKSet((await h.request('GET', '/auth/.well-known/jwks.json')).json<JSONWebKeySet>());
  });
  afterAll(() => h.stop());

  const verifyProof = (proof: string) =>
    jwtVerify(proof, keys, { algorithms: ['EdDSA'], typ: CONSENT_PROOF_TYP, issuer: 'mm-auth', audience: CONSENT_PROOF_AUDIENCE });

  it('check-pin with an intentId returns a proof of the PIN step, for this user and intent, signed with the JWKS key', async () => {
    const { userId } = await h.createUser('+237690000701', PIN);
    const { token } = await h.login('+237690000701', PIN);
    const intentId = randomUUID();
    const res = await h.request('POST', '/auth/check-pin', { token, body: { pin: PIN, intentId } });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ valid: boolean; consentProof: string; consentProofExpiresAt: string }>();
    expect(body.valid).toBe(true);
    expect(decodeProtectedHeader(body.consentProof)).toMatchObject({ alg: 'EdDSA', typ: 'consent+jwt' });
    const { payload } = await verifyProof(body.consentProof);
    expect(payload).toMatchObject({ sub: userId, intent_id: intentId, step: 'PIN', iss: 'mm-auth', aud: 'mm-ledger' });
    expect(payload.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(payload.exp! - payload.iat!).toBe(90);
    expect(new Date(body.consentProofExpiresAt).getTime()).toBe(payload.exp! * 1000);

    // Every proof is a new one (its own jti): the ledger redeems each once.
    const again = await h.request('POST', '/auth/check-pin', { token, body: { pin: PIN, intentId } });
    expect((await verifyProof(again.json<{ consentProof: string }>().consentProof)).payload.jti).not.toBe(payload.jti);
  });

  it('check-pin without an intentId answers as before; a wrong PIN yields no proof and still counts toward the lockout', async () => {
    await h.createUser('+237690000702', PIN);
    const { token } = await h.login('+237690000702', PIN);
    expect((await h.request('POST', '/auth/check-pin', { token, body: { pin: PIN } })).json()).toEqual({ valid: true });
    const wrong = await h.request('POST', '/auth/check-pin', { token, body: { pin: '1111', intentId: randomUUID() } });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().code).toBe('INVALID_PIN');
    expect(wrong.body).not.toContain('consentProof');
    const pg = new Client({ connectionString: h.adminUrl });
    await pg.connect();
    try {
      const row = (await pg.query(`SELECT failed_pin_attempts FROM auth.users WHERE phone = $1`, ['+237690000702'])).rows[0];
      expect(row.failed_pin_attempts).toBe(1);
    } finally {
      await pg.end();
    }
    const bad = await h.request('POST', '/auth/check-pin', { token, body: { pin: PIN, intentId: 'not-a-uuid' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors?.[0]).toMatchObject({ field: 'intentId' });
  });

  it('verify-otp with an intentId (purpose INTENT) returns a proof of the OTP step for the owner of the phone', async () => {
    const phone = '+237690000703';
    const { userId } = await h.createUser(phone, PIN);
    const intentId = randomUUID();
    // INTENT codes are the orchestrator's (its key) and bound to the intent they are sent for.
    const intent = { intentId, operation: 'CASH_OUT', amount: 5000, currency: 'XAF' };
    expect((await h.request('POST', '/auth/send-otp', { serviceKey: true, body: { phone, purpose: 'INTENT', intent } })).statusCode).toBe(
      202,
    );
    const res = await h.request('POST', '/auth/verify-otp', {
      serviceKey: true,
      body: { phone, purpose: 'INTENT', otp: await h.lastOtp(phone), intentId },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ verified: boolean; proof: string; consentProof: string }>();
    expect(body).toMatchObject({ verified: true, purpose: 'INTENT', proof: expect.stringMatching(/^otp1\./) });
    expect((await verifyProof(body.consentProof)).payload).toMatchObject({ sub: userId, intent_id: intentId, step: 'OTP' });
  });

  it('verify-otp refuses an intentId with another purpose without burning the code', async () => {
    const phone = '+237690000704';
    await h.createUser(phone, PIN);
    await h.request('POST', '/auth/send-otp', { body: { phone, purpose: 'LOGIN' } });
    const otp = await h.lastOtp(phone);
    const res = await h.request('POST', '/auth/verify-otp', { body: { phone, purpose: 'LOGIN', otp, intentId: randomUUID() } });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('CONSENT_OTP_PURPOSE_INVALID');
    const plain = await h.request('POST', '/auth/verify-otp', { body: { phone, purpose: 'LOGIN', otp } });
    expect(plain.statusCode).toBe(200);
    expect(plain.body).not.toContain('consentProof');
  });

  it('a proof is not an access token, and an access token is not a proof', async () => {
    await h.createUser('+237690000705', PIN);
    const { token } = await h.login('+237690000705', PIN);
    const proof = (await h.request('POST', '/auth/check-pin', { token, body: { pin: PIN, intentId: randomUUID() } })).json<{
      consentProof: string;
    }>().consentProof;
    const me = await h.request('GET', '/auth/me', { token: proof });
    expect(me.statusCode).toBe(401);
    expect(me.json().code).toBe('TOKEN_INVALID');
    await expect(verifyProof(token)).rejects.toThrow();
  });
});
