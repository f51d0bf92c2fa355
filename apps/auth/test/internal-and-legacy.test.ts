import { Client } from 'pg';
import { authApp } from '../src/auth.app';
import { boot } from '../../../test/support/boot';
import { callerKey } from '../../../test/support/test-env';
import { AuthHarness, type JsonBody } from './support/auth-harness';

const ADMIN_PHONE = '+237690000900';
const ADMIN_PIN = '4826';

async function count(adminUrl: string, sql: string, params: unknown[] = []): Promise<number> {
  const pg = new Client({ connectionString: adminUrl });
  await pg.connect();
  try {
    return Number((await pg.query(sql, params)).rows[0].n);
  } finally {
    await pg.end();
  }
}

describe('auth: internal endpoints (orchestrator saga steps)', () => {
  const h = new AuthHarness();
  beforeAll(() => h.start({ BOOTSTRAP_ADMIN_PHONE: ADMIN_PHONE, BOOTSTRAP_ADMIN_PIN: ADMIN_PIN }));
  afterAll(() => h.stop());

  const internal = (method: 'POST' | 'DELETE', url: string, body?: unknown) =>
    h.request(method, `/auth/internal/${url}`, { serviceKey: true, body });
  const putInternal = async (url: string, body: unknown) => {
    const res = await h.app.inject({
      method: 'PUT',
      url: `/auth/internal/${url}`,
      headers: { 'x-service-key': callerKey('orchestrator') },
      payload: body as never,
    });
    return { statusCode: res.statusCode, json: () => res.json() as JsonBody };
  };

  it('require the service key', async () => {
    const res = await h.request('POST', '/auth/internal/create-idp-user', { body: { phone: '+237690000601', pin: '2580' } });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('INVALID_SERVICE_CREDENTIALS');
    const wrong = await h.request('POST', '/auth/internal/introspect', {
      headers: { 'x-service-key': 'x'.repeat(64) },
      body: { token: 'a' },
    });
    expect(wrong.json().code).toBe('INVALID_SERVICE_CREDENTIALS');
  });

  it('create-idp-user twice: one user, the same answer; another PIN for the phone is a conflict', async () => {
    const body = { phone: '+237690000601', pin: '2580' };
    const [a, b] = [await internal('POST', 'create-idp-user', body), await internal('POST', 'create-idp-user', body)];
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    // the same user; `created` tells the first call from its replay
    expect(b.json()).toEqual({ ...a.json(), created: false });
    expect(a.json().created).toBe(true);
    expect(await count(h.adminUrl, `SELECT count(*) n FROM auth.idp_users WHERE phone = $1`, [body.phone])).toBe(1);
    expect((await internal('POST', 'create-idp-user', { ...body, pin: '7391' })).json().code).toBe('USER_ALREADY_EXISTS');
    expect((await internal('POST', 'create-idp-user', { phone: '+237690000602', pin: '1111' })).json().code).toBe('PIN_POLICY_VIOLATION');
  });

  it('create-local-user twice: one user, the same answer; concurrent calls too', async () => {
    const idp = (await internal('POST', 'create-idp-user', { phone: '+237690000603', pin: '2580' })).json<{ idpUserId: string }>();
    const body = { idpUserId: idp.idpUserId, roles: ['MERCHANT'] };
    const results = await Promise.all([1, 2, 3].map(() => internal('POST', 'create-local-user', body)));
    expect(results.map((r) => r.statusCode)).toEqual([201, 201, 201]);
    expect(new Set(results.map((r) => r.json().id)).size).toBe(1);
    expect(results[0].json()).toMatchObject({ phone: '+237690000603', roles: ['MERCHANT'], status: 'ACTIVE' });
    expect(await count(h.adminUrl, `SELECT count(*) n FROM auth.users WHERE idp_user_id = $1`, [idp.idpUserId])).toBe(1);
    expect((await internal('POST', 'create-local-user', { ...body, roles: ['ADMIN'] })).json().code).toBe('USER_ALREADY_EXISTS');
    expect(
      (await internal('POST', 'create-local-user', { idpUserId: '00000000-0000-4000-8000-000000000000', roles: ['CUSTOMER'] })).json().code,
    ).toBe('USER_NOT_FOUND');
    expect((await internal('POST', 'create-local-user', { ...body, roles: ['ROOT'] })).json().errors?.[0]).toMatchObject({
      field: 'roles',
      code: 'INVALID_ROLE',
    });
  });

  it('deletes (compensation) twice: gone once, success both times; sessions die with the local user', async () => {
    const phone = '+237690000604';
    const { userId, idpUserId } = await h.createUser(phone, '2580');
    const { token } = await h.login(phone, '2580');
    for (let i = 0; i < 2; i++) expect((await internal('DELETE', `local-user/${userId}`)).statusCode).toBe(204);
    expect((await h.request('GET', '/auth/me', { token })).json().code).toBe('TOKEN_REVOKED');
    for (let i = 0; i < 2; i++) expect((await internal('DELETE', `idp-user/${idpUserId}`)).statusCode).toBe(204);
    expect(await count(h.adminUrl, `SELECT count(*) n FROM auth.idp_users WHERE id = $1`, [idpUserId])).toBe(0);
    expect((await h.request('POST', '/auth/login', { body: { phone, pin: '2580' } })).json().code).toBe('INVALID_CREDENTIALS');
    expect((await internal('DELETE', 'local-user/not-a-uuid')).json().code).toBe('VALIDATION_ERROR');
  });

  it('verify-reset-pin-otp and reset-pin twice: the same proof, one reset', async () => {
    const phone = '+237690000605';
    const { userId } = await h.createUser(phone, '2580');
    const session = await h.login(phone, '2580');
    await h.request('POST', '/auth/reset-pin/request', { body: { phone } });
    const otp = await h.lastOtp(phone);
    const [v1, v2] = [
      await internal('POST', 'verify-reset-pin-otp', { phone, otp }),
      await internal('POST', 'verify-reset-pin-otp', { phone, otp }),
    ];
    expect([v1.statusCode, v2.statusCode]).toEqual([200, 200]);
    expect(v2.json()).toEqual(v1.json());
    const wrongOtp = otp === '000000' ? '000001' : '000000';
    expect((await internal('POST', 'verify-reset-pin-otp', { phone, otp: wrongOtp })).json().code).toBe('OTP_EXPIRED');

    const body = { phone, resetToken: v1.json<{ resetToken: string }>().resetToken, newPin: '7391' };
    const [r1, r2] = [await internal('POST', 'reset-pin', body), await internal('POST', 'reset-pin', body)];
    expect([r1.statusCode, r2.statusCode]).toEqual([200, 200]);
    expect(r2.json()).toEqual(r1.json());
    expect(r1.json()).toEqual({ reset: true, userId });
    expect((await h.request('GET', '/auth/me', { token: session.token })).json().code).toBe('TOKEN_REVOKED');
    const newSession = await h.login(phone, '7391');
    // The replay changed nothing: the session opened after the reset lives on.
    await internal('POST', 'reset-pin', body);
    expect((await h.request('GET', '/auth/me', { token: newSession.token })).statusCode).toBe(200);
  });

  it('bootstrap admin: created on first start from config, once', async () => {
    expect(await count(h.adminUrl, `SELECT count(*) n FROM auth.users WHERE 'ADMIN' = ANY (roles)`)).toBe(1);
    const { token } = await h.login(ADMIN_PHONE, ADMIN_PIN);
    expect((await h.request('GET', '/auth/me', { token })).json()).toMatchObject({ phone: ADMIN_PHONE, roles: ['ADMIN'] });
    // A second instance starting on the same database creates nothing more.
    const running = await boot(authApp, { ...h.env, BOOTSTRAP_ADMIN_PHONE: '+237690000901' });
    await running.close();
    expect(await count(h.adminUrl, `SELECT count(*) n FROM auth.users WHERE 'ADMIN' = ANY (roles)`)).toBe(1);
  });

  it("create-idp-user and create-local-user with the caller's ids: a replay is the same user, another id for the phone a conflict", async () => {
    const phone = '+237690000606';
    const idpUserId = '6f1d3c52-1a2b-4c3d-8e4f-5a6b7c8d9e01';
    const userId = '6f1d3c52-1a2b-4c3d-8e4f-5a6b7c8d9e02';
    const first = await internal('POST', 'create-idp-user', { phone, pin: '2580', idpUserId });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({ idpUserId, phone, created: true });
    expect((await internal('POST', 'create-idp-user', { phone, pin: '2580', idpUserId })).json()).toEqual({
      idpUserId,
      phone,
      created: false,
    });
    // Another registration of the same phone (its own id) must not adopt this user.
    const other = await internal('POST', 'create-idp-user', { phone, pin: '2580', idpUserId: '6f1d3c52-1a2b-4c3d-8e4f-5a6b7c8d9e03' });
    expect(other.json().code).toBe('USER_ALREADY_EXISTS');
    const local = await internal('POST', 'create-local-user', { idpUserId, userId, roles: ['MASTER_AGENT'] });
    expect(local.statusCode).toBe(201);
    expect(local.json()).toMatchObject({ id: userId, roles: ['MASTER_AGENT'] });
    expect((await internal('POST', 'create-local-user', { idpUserId, userId, roles: ['MASTER_AGENT'] })).json().id).toBe(userId);
    const otherId = await internal('POST', 'create-local-user', {
      idpUserId,
      userId: '6f1d3c52-1a2b-4c3d-8e4f-5a6b7c8d9e04',
      roles: ['MASTER_AGENT'],
    });
    expect(otherId.json().code).toBe('USER_ALREADY_EXISTS');
  });

  it('users/by-phone finds a user, 404 USER_NOT_FOUND otherwise', async () => {
    const { userId } = await h.createUser('+237690000607', '2580', ['SUPPORT']);
    const found = await h.request('GET', '/auth/internal/users/by-phone?phone=%2B237690000607', { serviceKey: true });
    expect(found.json()).toMatchObject({ id: userId, roles: ['SUPPORT'], status: 'ACTIVE' });
    const missing = await h.request('GET', '/auth/internal/users/by-phone?phone=%2B237690000699', { serviceKey: true });
    expect([missing.statusCode, missing.json().code]).toEqual([404, 'USER_NOT_FOUND']);
    const bad = await h.request('GET', '/auth/internal/users/by-phone?phone=0690', { serviceKey: true });
    expect(bad.json().errors?.[0]).toMatchObject({ field: 'phone', code: 'INVALID_PHONE_FORMAT' });
  });

  it('status DISABLED ends the sessions and refuses login; ACTIVE lets the user back in', async () => {
    const phone = '+237690000608';
    const { userId } = await h.createUser(phone, '2580');
    const { token } = await h.login(phone, '2580');
    const put = (status: string) => putInternal(`users/${userId}/status`, { status });
    for (let i = 0; i < 2; i++) expect((await put('DISABLED')).json()).toMatchObject({ id: userId, status: 'DISABLED' });
    expect((await h.request('GET', '/auth/me', { token })).json().code).toBe('TOKEN_REVOKED');
    const refused = await h.request('POST', '/auth/login', { body: { phone, pin: '2580' } });
    expect([refused.statusCode, refused.json().code]).toEqual([403, 'ACCOUNT_DISABLED']);
    expect((await put('ACTIVE')).json().status).toBe('ACTIVE');
    await h.login(phone, '2580');
    expect((await put('FROZEN')).json().code).toBe('VALIDATION_ERROR');
  });

  it('roles change: the sessions end, the next login carries the new role; an unknown role is INVALID_ROLE', async () => {
    const phone = '+237690000609';
    const { userId } = await h.createUser(phone, '2580', ['AGENT']);
    const { token } = await h.login(phone, '2580');
    const put = (roles: string[]) => putInternal(`users/${userId}/roles`, { roles });
    expect((await put(['MASTER_AGENT'])).json().roles).toEqual(['MASTER_AGENT']);
    expect((await h.request('GET', '/auth/me', { token })).json().code).toBe('TOKEN_REVOKED');
    const fresh = await h.login(phone, '2580');
    expect((await h.request('GET', '/auth/me', { token: fresh.token })).json().roles).toEqual(['MASTER_AGENT']);
    // the same roles again: nothing changes, the session lives on
    await put(['MASTER_AGENT']);
    expect((await h.request('GET', '/auth/me', { token: fresh.token })).statusCode).toBe(200);
    expect((await put(['ROOT'])).json().errors?.[0]).toMatchObject({ field: 'roles', code: 'INVALID_ROLE' });
    expect((await putInternal('users/00000000-0000-4000-8000-000000000000/roles', { roles: ['AGENT'] })).json().code).toBe(
      'USER_NOT_FOUND',
    );
  });

  describe('deprecated routes', () => {
    it('register* answer 410 REGISTRATION_MOVED with the successor: no user is created outside the orchestrator workflow', async () => {
      for (const path of ['register', 'register/merchant', 'register/agent', 'register/admin']) {
        const res = await h.request('POST', `/auth/${path}`, { body: { phone: '+237690000701', pin: '2580' } });
        expect(res.statusCode).toBe(410);
        expect(res.json().code).toBe('REGISTRATION_MOVED');
        expect(res.headers.deprecation).toMatch(/^@\d+$/);
        expect(res.headers.link).toContain(`/orchestrator/auth/${path}`);
      }
      expect(await count(h.adminUrl, `SELECT count(*) n FROM auth.idp_users WHERE phone = $1`, ['+237690000701'])).toBe(0);
    });

    it('reset-pin/confirm verifies the code and resets in one call', async () => {
      const phone = '+237690000702';
      await h.createUser(phone, '2580', ['MERCHANT']);
      await h.request('POST', '/auth/reset-pin/request', { body: { phone } });
      const res = await h.request('POST', '/auth/reset-pin/confirm', { body: { phone, otp: await h.lastOtp(phone), newPin: '7391' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers.deprecation).toBeDefined();
      expect((await h.request('POST', '/auth/login', { body: { phone, pin: '7391' } })).statusCode).toBe(200);
    });

    it('are marked deprecated in the OpenAPI document', async () => {
      const doc = (await h.request('GET', '/openapi.json')).json<{
        paths: Record<string, Record<string, { deprecated?: boolean }>>;
        components: { schemas: Record<string, { properties?: Record<string, { pattern?: string }> }> };
      }>();
      expect(doc.components.schemas.LoginDto?.properties?.pin?.pattern).toBe('^\\d{4,6}$');
      for (const path of [
        '/auth/register',
        '/auth/register/merchant',
        '/auth/register/agent',
        '/auth/register/admin',
        '/auth/reset-pin/confirm',
      ]) {
        expect(doc.paths[path]?.post?.deprecated).toBe(true);
      }
      expect(doc.paths['/auth/login']?.post?.deprecated).toBeUndefined();
    });
  });
});
