import { authApp } from '../../auth/src/auth.app';
import type { AuthConfig } from '../../auth/src/auth.config';
import { type RunningApp, boot } from '../../../test/support/boot';
import { type TestDatabase, callerKey, createTestDatabase, createTestRedis, serviceEnv } from '../../../test/support/test-env';
import { type Harness, contextFor, fundedAccount, intentBody, startLedger } from './ledger-harness';

/**
 * The real pair: auth (booted in-process, listening) issues consent proofs through check-pin and
 * verify-otp; the ledger, pointed at auth's URL only (the JWKS path is derived), verifies them
 * against auth's own key set. No stand-in signer is involved.
 */
describe('ledger + real auth: consent proofs end to end', () => {
  let auth: RunningApp<AuthConfig>;
  let authDb: TestDatabase;
  const authRedis = createTestRedis();
  let h: Harness;

  const authCall = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${auth.url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any };
  };
  const createUser = async (phone: string, pin: string): Promise<{ userId: string; token: string }> => {
    const internal = { 'x-service-key': callerKey('orchestrator') };
    const idp = await authCall('POST', '/auth/internal/create-idp-user', { phone, pin }, internal);
    const local = await authCall(
      'POST',
      '/auth/internal/create-local-user',
      { idpUserId: idp.body.idpUserId, roles: ['CUSTOMER'] },
      internal,
    );
    const login = await authCall('POST', '/auth/login', { phone, pin });
    expect([idp.status, local.status, login.status]).toEqual([201, 201, 200]);
    return { userId: local.body.id, token: login.body.token };
  };

  beforeAll(async () => {
    authDb = await createTestDatabase();
    auth = await boot(authApp, serviceEnv('auth', authDb, authRedis, { OTP_RESEND_COOLDOWN_SEC: '0' }), { listen: true });
    // Only AUTH_URL: the ledger derives auth's JWKS URL from it (the harness's own signer is switched off).
    h = await startLedger({ AUTH_URL: auth.url, LEDGER_CONSENT_JWKS_URL: undefined });
  });
  afterAll(async () => {
    await h?.close();
    await auth?.close();
    await authRedis.flush();
    await authDb?.drop();
  });

  it('a proof from check-pin moves the intent to PIN_VERIFIED; the access token, a second use or another user do not', async () => {
    const payer = await createUser('+237690001001', '2580');
    const other = await createUser('+237690001002', '2580');
    const a = await fundedAccount(h, 10_000);
    const b = await fundedAccount(h, 0);
    const created = await h.call('POST', '/v1/internal/intents', intentBody(a, b, 1_000, { actor: { id: payer.userId } }));
    expect(created.status).toBe(201);
    const id = created.body.intentId as string;
    const move = (consentProof: string | undefined) =>
      h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: payer.userId }, consentProof });

    // The payer's real access token, signed by the same key, is not a proof.
    expect((await move(payer.token)).body.code).toBe('CONSENT_PROOF_INVALID');
    // Another signed-in user's PIN, checked for this intent, is not the payer's consent.
    const othersPin = await authCall('POST', '/auth/check-pin', { pin: '2580', intentId: id }, { authorization: `Bearer ${other.token}` });
    expect(othersPin.status).toBe(200);
    expect((await move(othersPin.body.consentProof)).body.code).toBe('CONSENT_PROOF_MISMATCH');
    // A wrong PIN yields nothing to present.
    const wrong = await authCall('POST', '/auth/check-pin', { pin: '1111', intentId: id }, { authorization: `Bearer ${payer.token}` });
    expect(wrong.body.code).toBe('INVALID_PIN');

    const checked = await authCall('POST', '/auth/check-pin', { pin: '2580', intentId: id }, { authorization: `Bearer ${payer.token}` });
    expect(checked.status).toBe(200);
    const accepted = await move(checked.body.consentProof);
    expect(accepted.status).toBe(200);
    expect(accepted.body.status).toBe('PIN_VERIFIED');
    expect((await move(checked.body.consentProof)).body.code).toBe('CONSENT_PROOF_REPLAYED');

    const done = await h.call('POST', `/v1/internal/intents/${id}/transition`, {
      toStatus: 'SUCCEEDED',
      actor: { id: payer.userId },
      executionContext: contextFor(a, b, 1_000),
    });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('SUCCEEDED');
  });

  it('a proof from verify-otp (purpose INTENT) moves an OTP intent to OTP_VERIFIED for the customer named at creation', async () => {
    const agent = await createUser('+237690001003', '2580');
    const customerPhone = '+237690001004';
    const customer = await createUser(customerPhone, '2580');
    const a = await fundedAccount(h, 10_000);
    const b = await fundedAccount(h, 0);
    const created = await h.call(
      'POST',
      '/v1/internal/intents',
      intentBody(a, b, 500, { actor: { id: agent.userId }, requiresOtp: true, otpUserId: customer.userId }),
    );
    const id = created.body.intentId as string;
    const move = (toStatus: string, consentProof?: string) =>
      h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus, actor: { id: agent.userId }, consentProof });
    expect((await move('OTP_SENT')).status).toBe(200);

    const orchestrator = { 'x-service-key': callerKey('orchestrator') };
    const intent = { intentId: id, operation: 'CASH_OUT', amount: 500, currency: 'XAF' };
    expect((await authCall('POST', '/auth/send-otp', { phone: customerPhone, purpose: 'INTENT', intent }, orchestrator)).status).toBe(202);
    const sms = await authCall('GET', `/auth/dev/sms?phone=${encodeURIComponent(customerPhone)}`);
    const otp = /\b(\d{6})\b/.exec(sms.body.messages[0].text)![1];
    const verified = await authCall(
      'POST',
      '/auth/verify-otp',
      { phone: customerPhone, purpose: 'INTENT', otp, intentId: id },
      orchestrator,
    );
    expect(verified.status).toBe(200);
    // The OTP proof is not a PIN proof.
    expect((await move('PIN_VERIFIED', verified.body.consentProof)).body.code).toBe('CONSENT_PROOF_MISMATCH');
    const accepted = await move('OTP_VERIFIED', verified.body.consentProof);
    expect(accepted.status).toBe(200);
    expect(accepted.body.status).toBe('OTP_VERIFIED');
  });
});
