import { randomUUID } from 'node:crypto';
import { PlatformHarness } from './platform-harness';

describe('orchestrator access guard (real auth: JWKS, introspection, revocation)', () => {
  const h = new PlatformHarness();
  // Three apps boot here (auth, ledger, orchestrator): on a busy machine that can take longer than one test's 30 s.
  beforeAll(() => h.start(), 90_000);
  afterAll(() => h.stop());

  // GET /api/risk/blocklist needs compliance.audit: administrators hold it, end users do not.
  const protectedRoute = '/api/risk/blocklist';

  it('no token: 401 UNAUTHORIZED; garbage: TOKEN_INVALID; public and proxied routes are untouched', async () => {
    expect((await h.call('GET', protectedRoute)).body.code).toBe('UNAUTHORIZED');
    expect((await h.call('GET', protectedRoute, { token: 'x.y.z' })).body.code).toBe('TOKEN_INVALID');
    expect((await h.call('GET', protectedRoute, { headers: { authorization: 'Basic abc' } })).body.code).toBe('UNAUTHORIZED');
    expect((await h.call('GET', '/api/config/currencies')).status).toBe(200);
    expect((await h.call('GET', '/health')).status).toBe(200);
    // proxied to auth: auth's own answer (its guard, its code)
    expect((await h.call('GET', '/api/auth/me')).body.code).toBe('TOKEN_MISSING');
  });

  it('a role without the permission gets 403 FORBIDDEN; a role with it gets through', async () => {
    await h.authUser('+237690100001', '2580', ['CUSTOMER']);
    const customer = await h.login('+237690100001', '2580');
    const refused = await h.call('GET', protectedRoute, { token: customer });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('FORBIDDEN');
    const admin = await h.adminToken();
    expect((await h.call('GET', protectedRoute, { token: admin })).status).toBe(200);
  });

  it('a token of a logged-out session is refused at the next request (even within the session cache)', async () => {
    const admin = await h.adminToken();
    expect((await h.call('GET', protectedRoute, { token: admin })).status).toBe(200);
    expect((await h.call('POST', '/api/auth/logout', { token: admin })).status).toBe(204);
    const res = await h.call('GET', protectedRoute, { token: admin });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('TOKEN_REVOKED');
  });

  it('a well-formed token signed by another key is TOKEN_INVALID', async () => {
    const { SignJWT, generateKeyPair } = await import('jose');
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const forged = await new SignJWT({ sid: randomUUID(), roles: ['ADMIN'] })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: 'other' })
      .setIssuer('mm-auth')
      .setAudience('mm-platform')
      .setSubject(randomUUID())
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    expect((await h.call('GET', protectedRoute, { token: forged })).body.code).toBe('TOKEN_INVALID');
  });

  it('internal routes take the service key, not a user token', async () => {
    const admin = await h.adminToken();
    // not on the public listener at all
    expect((await h.call('GET', '/api/internal/directory/merchants/by-phone?phone=%2B237690100009')).status).toBe(404);
    const withToken = await h.internal('GET', '/api/internal/directory/merchants/by-phone?phone=%2B237690100009', {
      token: admin,
      serviceKey: false,
    });
    expect(withToken.body.code).toBe('INVALID_SERVICE_CREDENTIALS');
    const withKey = await h.internal('GET', '/api/internal/directory/merchants/by-phone?phone=%2B237690100009');
    expect(withKey.status).toBe(404);
    expect(withKey.body.code).toBe('MERCHANT_NOT_FOUND');
    const badPhone = await h.internal('GET', '/api/internal/directory/merchants/by-phone?phone=0690');
    expect(badPhone.body.errors[0]).toMatchObject({ field: 'phone', code: 'INVALID_PHONE_FORMAT' });
    expect((await h.internal('GET', '/api/internal/directory/merchants/nope')).body.code).toBe('VALIDATION_ERROR');
  });
});
