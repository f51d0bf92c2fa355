import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, createLocalJWKSet, jwtVerify } from 'jose';
import type { Redis } from 'ioredis';
import { REDIS } from '@mm/platform';
import { AuthSecrets } from '../src/crypto/auth-secrets';
import { revokedSessionKey } from '../src/sessions/session.service';
import { openApiOf, undocumented } from '../../../test/support/openapi-departures';
import { AuthHarness } from './support/auth-harness';

const ALICE = '+237690000001';
const BOB = '+237690000002';
const PIN = '2580';

describe('auth: login, tokens, sessions', () => {
  const h = new AuthHarness();
  let alice: { userId: string };

  beforeAll(async () => {
    // Grace window off: these tests pin down plain reuse detection; refresh-grace.test.ts covers the window.
    await h.start({ REFRESH_GRACE_SEC: '0' });
    alice = await h.createUser(ALICE, PIN);
    await h.createUser(BOB, '1357');
  });
  afterAll(() => h.stop());

  it('logs in with phone + PIN on both login routes and returns a short-lived EdDSA token verifiable with the JWKS', async () => {
    for (const url of ['/auth/login', '/auth/login/phone-pin']) {
      const res = await h.request('POST', url, { body: { phone: ALICE, pin: PIN } });
      expect(res.statusCode).toBe(200);
      const body = res.json<{ token: string; refreshToken: string; expiresIn: number }>();
      expect(body.refreshToken).toMatch(/^rt1\./);
      expect(body.expiresIn).toBeLessThanOrEqual(900);
      const jwks = (await h.request('GET', '/auth/.well-known/jwks.json')).json<{ keys: never[] }>();
      const { payload, protectedHeader } = await jwtVerify(body.token, createLocalJWKSet({ keys: jwks.keys }));
      expect(protectedHeader.alg).toBe('EdDSA');
      expect(payload).toMatchObject({ sub: alice.userId, roles: ['CUSTOMER'], jti: expect.any(String), sid: expect.any(String) });
      expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(900);
    }
  });

  it('GET /auth/me returns the current user', async () => {
    const { token } = await h.login(ALICE, PIN);
    const res = await h.request('GET', '/auth/me', { token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: alice.userId, phone: ALICE, roles: ['CUSTOMER'], status: 'ACTIVE' });
    expect((await h.request('GET', '/auth/me')).json().code).toBe('TOKEN_MISSING');
  });

  it('answers an unknown phone exactly like a wrong PIN, in about the same time', async () => {
    const wrong = await h.request('POST', '/auth/login', { body: { phone: BOB, pin: '9999' } });
    const unknown = await h.request('POST', '/auth/login', { body: { phone: '+237699999999', pin: '9999' } });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    const strip = (r: { json(): Record<string, unknown> }) => ({ ...r.json(), requestId: undefined });
    expect(strip(unknown)).toEqual(strip(wrong));
    expect(wrong.json().code).toBe('INVALID_CREDENTIALS');

    await h.createUser('+237690000099', '7391');
    // Interleaved samples, medians: robust to a machine whose load drifts during the test.
    const samples: Record<string, number[]> = { known: [], unknown: [] };
    for (let i = 0; i < 8; i++) {
      for (const [kind, phone] of [
        ['known', '+237690000099'],
        ['unknown', '+237698888888'],
      ] as const) {
        const t0 = performance.now();
        await h.request('POST', '/auth/login', { body: { phone, pin: '9999' } });
        samples[kind].push(performance.now() - t0);
      }
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
    const [known, unknownMs] = [median(samples.known), median(samples.unknown)];
    // Both pay one scrypt; without the dummy hash the unknown phone would be ~10x faster.
    expect(unknownMs).toBeGreaterThan(known * 0.4);
    expect(unknownMs).toBeLessThan(known * 2.5);
  });

  it('rejects a malformed phone or PIN with a field code, not a 500', async () => {
    const res = await h.request('POST', '/auth/login', { body: { phone: '0690000001', pin: '12a4' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'phone', code: 'INVALID_PHONE_FORMAT' }),
        expect.objectContaining({ field: 'pin', code: 'INVALID_PIN_FORMAT' }),
      ]),
    );
  });

  it('rotates the refresh token; reusing a used one revokes the whole family', async () => {
    const first = await h.login(ALICE, PIN);
    const r1 = await h.request('POST', '/auth/refresh', { body: { refreshToken: first.refreshToken } });
    expect(r1.statusCode).toBe(200);
    const second = r1.json<{ token: string; refreshToken: string }>();
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect((await h.request('GET', '/auth/me', { token: second.token })).statusCode).toBe(200);

    const reuse = await h.request('POST', '/auth/refresh', { body: { refreshToken: first.refreshToken } });
    expect(reuse.statusCode).toBe(401);
    expect(reuse.json().code).toBe('REFRESH_TOKEN_REUSED');
    // The thief's and the owner's tokens of that family are all dead now.
    expect((await h.request('POST', '/auth/refresh', { body: { refreshToken: second.refreshToken } })).json().code).toBe('TOKEN_REVOKED');
    expect((await h.request('GET', '/auth/me', { token: second.token })).json().code).toBe('TOKEN_REVOKED');
    expect((await h.request('GET', '/auth/me', { token: first.token })).json().code).toBe('TOKEN_REVOKED');
  });

  it('lets exactly one of two concurrent refreshes with the same token win', async () => {
    const { refreshToken } = await h.login(ALICE, PIN);
    const results = await Promise.all([1, 2].map(() => h.request('POST', '/auth/refresh', { body: { refreshToken } })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 401]);
  });

  it('logout makes the access token fail at once, here and through introspection', async () => {
    const { token, refreshToken } = await h.login(ALICE, PIN);
    expect((await h.request('POST', '/auth/internal/introspect', { serviceKey: true, body: { token } })).json()).toMatchObject({
      active: true,
    });
    expect((await h.request('POST', '/auth/logout', { token })).statusCode).toBe(204);
    const me = await h.request('GET', '/auth/me', { token });
    expect(me.statusCode).toBe(401);
    expect(me.json().code).toBe('TOKEN_REVOKED');
    expect((await h.request('POST', '/auth/refresh', { body: { refreshToken } })).json().code).toBe('TOKEN_REVOKED');
    expect((await h.request('POST', '/auth/internal/introspect', { serviceKey: true, body: { token } })).json()).toEqual({
      active: false,
      reason: 'TOKEN_REVOKED',
    });
    // The marker services that verify offline check (README "How other services check a token").
    const sid = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sid as string;
    const redis = h.app.get<symbol, Redis>(REDIS);
    expect(await redis.exists(revokedSessionKey(sid))).toBe(1);
    expect(await redis.ttl(revokedSessionKey(sid))).toBeGreaterThan(900);
  });

  describe('tampered tokens', () => {
    let good: { token: string; refreshToken: string };
    beforeAll(async () => {
      good = await h.login(ALICE, PIN);
    });
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;

    it('rejects alg none', async () => {
      const forged = `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64({ ...claimsOf(good.token), roles: ['ADMIN'] })}.`;
      expect((await h.request('GET', '/auth/me', { token: forged })).json().code).toBe('TOKEN_INVALID');
    });

    it('rejects a modified payload with the original signature', async () => {
      const [header, , sig] = good.token.split('.');
      const forged = `${header}.${b64({ ...claimsOf(good.token), roles: ['ADMIN'] })}.${sig}`;
      expect((await h.request('GET', '/auth/me', { token: forged })).json().code).toBe('TOKEN_INVALID');
    });

    it('rejects a token signed with another key (and HS256 with the public key as secret)', async () => {
      const other = generateKeyPairSync('ed25519').privateKey;
      const claims = claimsOf(good.token);
      const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: 'x' }).sign(other);
      expect((await h.request('GET', '/auth/me', { token: forged })).json().code).toBe('TOKEN_INVALID');
      const jwks = (await h.request('GET', '/auth/.well-known/jwks.json')).body;
      const hs = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' }).sign(new TextEncoder().encode(jwks));
      expect((await h.request('GET', '/auth/me', { token: hs })).json().code).toBe('TOKEN_INVALID');
    });

    it('rejects an expired token signed with the real key', async () => {
      const key = h.app.get(AuthSecrets).signing;
      const now = Math.floor(Date.now() / 1000);
      const expired = await new SignJWT({ ...claimsOf(good.token), iat: now - 1000, exp: now - 60 })
        .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: key.kid })
        .sign(key.privateKey);
      const res = await h.request('GET', '/auth/me', { token: expired });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('TOKEN_EXPIRED');
    });

    it("rejects another user's refresh token presented with my access token, and rotates nothing", async () => {
      const bob = await h.login(BOB, '1357');
      const res = await h.request('POST', '/auth/refresh', { token: good.token, body: { refreshToken: bob.refreshToken } });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('TOKEN_INVALID');
      expect((await h.request('POST', '/auth/refresh', { token: bob.token, body: { refreshToken: bob.refreshToken } })).statusCode).toBe(
        200,
      );
    });

    it('rejects a refresh token used as an access token and garbage refresh tokens', async () => {
      expect((await h.request('GET', '/auth/me', { token: good.refreshToken })).json().code).toBe('TOKEN_INVALID');
      expect((await h.request('POST', '/auth/refresh', { body: { refreshToken: 'rt1.nope' } })).json().code).toBe('TOKEN_INVALID');
    });
  });

  it('answers login, me, refresh, logout and the JWKS exactly as the OpenAPI document describes them', async () => {
    const doc = await openApiOf(h.app);
    const phone = '+237690000077';
    await h.createUser(phone, '7395');
    const answer = (res: { statusCode: number; body: string; json(): unknown }) => ({
      status: res.statusCode,
      body: res.body === '' ? undefined : res.json(),
    });
    const login = await h.request('POST', '/auth/login', { body: { phone, pin: '7395' } });
    const pinLogin = await h.request('POST', '/auth/login/phone-pin', { body: { phone, pin: '7395' } });
    const { token, refreshToken } = login.json<{ token: string; refreshToken: string }>();
    const me = await h.request('GET', '/auth/me', { token });
    const refreshed = await h.request('POST', '/auth/refresh', { body: { refreshToken } });
    const jwks = await h.request('GET', '/auth/.well-known/jwks.json');
    const logout = await h.request('POST', '/auth/logout', { token: refreshed.json<{ token: string }>().token });
    const answers: Array<[string, string, { statusCode: number; body: string; json(): unknown }, number]> = [
      ['POST', '/auth/login', login, 200],
      ['POST', '/auth/login/phone-pin', pinLogin, 200],
      ['GET', '/auth/me', me, 200],
      ['POST', '/auth/refresh', refreshed, 200],
      ['GET', '/auth/.well-known/jwks.json', jwks, 200],
      ['POST', '/auth/logout', logout, 204],
    ];
    expect(answers.map(([method, path, res]) => [method, path, res.statusCode])).toEqual(
      answers.map(([method, path, , status]) => [method, path, status]),
    );
    expect(answers.flatMap(([method, path, res]) => undocumented(doc, method, path, answer(res)))).toEqual([]);
  });
});
