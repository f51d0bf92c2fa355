import { partnersApp } from '../../partners/src/partners.app';
import { webhookDispatcherApp } from '../../webhook-dispatcher/src/webhook-dispatcher.app';
import { type RunningApp, boot } from '../../../test/support/boot';
import { type TestDatabase, createTestDatabase, createTestRedis, serviceEnv } from '../../../test/support/test-env';
import { DeferredForwarder, type TestMerchant, createMerchant, orchestratorInternalUrl } from '../../../test/e2e/partners-support';
import { type Json, PlatformHarness } from './platform-harness';

/**
 * The orchestrator's partner-link routes: the merchant side of connections (connections.manage)
 * and the administration of integrations (partners.manage), with the real auth, orchestrator,
 * partners and dispatcher.
 */
describe('orchestrator: merchant and admin routes of the partner API', () => {
  const h = new PlatformHarness();
  const forwarder = new DeferredForwarder();
  const redis = createTestRedis();
  let db: TestDatabase;
  let partners: RunningApp;
  let dispatcher: RunningApp;
  let admin: string;
  let merchant: TestMerchant;
  let merchantToken: string;
  let created: Json;

  beforeAll(async () => {
    await forwarder.start();
    db = await createTestDatabase();
    dispatcher = await boot(webhookDispatcherApp, serviceEnv('webhook-dispatcher', db, redis), { listen: true });
    partners = await boot(
      partnersApp,
      serviceEnv('partners', db, redis, {
        ORCHESTRATOR_URL: forwarder.url,
        WEBHOOK_DISPATCHER_URL: dispatcher.url,
        PARTNERS_SWEEP_INTERVAL_MS: '0',
      }),
      { listen: true },
    );
    await h.start({ orchestrator: { PARTNERS_URL: partners.url, WEBHOOK_DISPATCHER_URL: dispatcher.url } });
    forwarder.target = orchestratorInternalUrl(h.orchestrator);
    admin = await h.adminToken();
    merchant = await createMerchant(h.sql, { auth: h.auth.url }, '+237691200001');
    merchantToken = await h.login(merchant.phone, merchant.pin);
    const res = await h.call('POST', '/api/admin/partners/integrations', {
      token: admin,
      body: { name: 'Caisse Rapide', technicalContactEmail: 'tech@pos.example', webhookUrl: 'http://127.0.0.1:9/hooks' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    created = res.body;
  });
  afterAll(async () => {
    await h.stop();
    await partners?.close();
    await dispatcher?.close();
    await forwarder.stop();
    await redis.flush();
    await db?.drop();
  });

  const requestConnection = (phone: string, scopes = ['orders.write']) =>
    h.call('POST', '/api/partners-public/connections/request', {
      headers: { authorization: `Bearer ${created.apiKeys.live.key}` },
      body: { merchantPhone: phone, scopes, requestedReason: 'Till 2' },
    });

  it('admin routes need partners.manage: 401 without a token, 403 for a merchant', async () => {
    expect((await h.call('GET', '/api/admin/partners/integrations')).status).toBe(401);
    const refused = await h.call('GET', '/api/admin/partners/integrations', { token: merchantToken });
    expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN']);
    const listed = await h.call('GET', '/api/admin/partners/integrations', { token: admin });
    expect(listed.body.data.map((i: Json) => i.id)).toContain(created.integration.id);
    expect(created.integration.name).toBe('Caisse Rapide');
    expect(created.apiKeys.live.key).toMatch(/^svc_sk_live_/);
  });

  it('merchant routes need connections.manage: 403 for an administrator', async () => {
    const res = await h.call('GET', '/api/merchant/connections', { token: admin });
    expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('the merchant sees the request with its scopes in clear and accepts it; a second accept is 409 CONFLICT', async () => {
    const req = await requestConnection(merchant.phone, ['orders.write', 'orders.read']);
    expect(req.status).toBe(200);
    const list = await h.call('GET', '/api/merchant/connections', { token: merchantToken });
    expect(list.status).toBe(200);
    expect(list.body.data[0]).toMatchObject({
      id: req.body.connectionId,
      integrationName: 'Caisse Rapide',
      merchantId: merchant.merchantId,
      status: 'pending',
      scopes: ['orders.write', 'orders.read'],
      scopeDescriptions: ['Create payment orders (QR codes) in your name', 'See the status of the payment orders it created'],
      requestedReason: 'Till 2',
    });
    const accepted = await h.call('POST', `/api/merchant/connections/${req.body.connectionId}/accept`, { token: merchantToken });
    expect(accepted.body).toMatchObject({ status: 'active', activatedAt: expect.any(String) });
    const again = await h.call('POST', `/api/merchant/connections/${req.body.connectionId}/accept`, { token: merchantToken });
    expect([again.status, again.body.code]).toEqual([409, 'CONFLICT']);
    const seen = await h.call('GET', `/api/partners-public/connections/${req.body.connectionId}`, {
      headers: { authorization: `Bearer ${created.apiKeys.live.key}` },
    });
    expect(seen.body).toMatchObject({ status: 'active', merchantId: merchant.merchantId });

    const revoked = await h.call('POST', `/api/merchant/connections/${req.body.connectionId}/revoke`, { token: merchantToken });
    expect(revoked.body).toMatchObject({ status: 'revoked', revokedBy: 'merchant' });
  });

  it('another merchant cannot touch the connection, a malformed id is the same 404, and reject works on a pending one', async () => {
    const other = await createMerchant(h.sql, { auth: h.auth.url }, '+237691200002');
    const otherToken = await h.login(other.phone, other.pin);
    const req = await requestConnection(merchant.phone);
    for (const [token, id] of [
      [otherToken, req.body.connectionId],
      [merchantToken, 'not-a-uuid'],
      [merchantToken, '00000000-0000-4000-8000-000000000000'],
    ]) {
      const res = await h.call('POST', `/api/merchant/connections/${id}/accept`, { token });
      expect([res.status, res.body.code]).toEqual([404, 'CONNECTION_NOT_FOUND']);
    }
    expect((await h.call('GET', '/api/merchant/connections', { token: otherToken })).body.data).toEqual([]);
    const rejected = await h.call('POST', `/api/merchant/connections/${req.body.connectionId}/reject`, { token: merchantToken });
    expect(rejected.body.status).toBe('rejected');
    const rejectedList = await h.call('GET', '/api/merchant/connections?status=rejected', { token: merchantToken });
    expect(rejectedList.body.data.map((c: Json) => c.id)).toContain(req.body.connectionId);
    expect(
      (await h.call('GET', '/api/merchant/connections?status=nope&limit=0', { token: merchantToken })).body.errors
        .map((e: Json) => e.code)
        .sort(),
    ).toEqual(['INVALID_LIMIT', 'INVALID_STATUS']);
  });

  it('a MERCHANT-role user without a merchant record gets 404 MERCHANT_NOT_FOUND', async () => {
    await h.authUser('+237691200009', '2580', ['MERCHANT']);
    const token = await h.login('+237691200009', '2580');
    const res = await h.call('GET', '/api/merchant/connections', { token });
    expect([res.status, res.body.code]).toEqual([404, 'MERCHANT_NOT_FOUND']);
  });

  it('admin: keys (issue, rotate, revoke), webhook endpoint and secret, connection revoke, integration revoke', async () => {
    const id = created.integration.id as string;
    const base = `/api/admin/partners/integrations/${id}`;
    const issued = await h.call('POST', `${base}/keys`, { token: admin, body: { mode: 'test' } });
    expect(issued.status).toBe(201);
    expect(issued.headers.get('cache-control')).toBe('no-store');
    const rotated = await h.call('POST', `${base}/keys/${issued.body.id}/rotate`, { token: admin, body: { overlapSeconds: 0 } });
    expect(rotated.body.key).toMatch(/^svc_sk_test_/);
    const keys = await h.call('GET', `${base}/keys`, { token: admin });
    expect(keys.body.find((k: Json) => k.id === issued.body.id).status).toBe('expired');
    expect(JSON.stringify(keys.body)).not.toContain(rotated.body.key);
    expect((await h.call('POST', `${base}/keys/${rotated.body.id}/revoke`, { token: admin })).body.status).toBe('revoked');
    expect((await h.call('POST', `${base}/keys/not-a-uuid/revoke`, { token: admin })).body.code).toBe('API_KEY_NOT_FOUND');

    const secret = await h.call('POST', `${base}/webhook-secret/rotate`, { token: admin, body: { mode: 'live' } });
    expect(secret.body).toMatchObject({ mode: 'live', secret: expect.any(String) });
    const endpoint = await h.call('PUT', `${base}/webhook-endpoint`, {
      token: admin,
      body: { mode: 'test', url: 'https://pos.example/test-hooks' },
    });
    expect(endpoint.body).toEqual({ mode: 'test', url: 'https://pos.example/test-hooks', status: 'enabled' });
    expect(
      (await h.call('PUT', `${base}/webhook-endpoint`, { token: admin, body: { mode: 'test', url: 'nope' } })).body.errors[0].code,
    ).toBe('INVALID_WEBHOOK_URL');

    const req = await requestConnection(merchant.phone);
    const revokedConnection = await h.call('POST', `/api/admin/partners/connections/${req.body.connectionId}/revoke`, { token: admin });
    expect(revokedConnection.body).toMatchObject({ status: 'revoked', revokedBy: 'admin' });

    expect((await h.call('GET', '/api/admin/partners/payment-anomalies?status=open', { token: admin })).body).toEqual({
      data: [],
      nextCursor: null,
    });
    const revoked = await h.call('POST', `${base}/revoke`, { token: admin });
    expect(revoked.body.status).toBe('revoked');
    const refused = await h.call('GET', '/api/partners-public/connections', {
      headers: { authorization: `Bearer ${created.apiKeys.live.key}` },
    });
    expect([refused.status, refused.body.code]).toEqual([401, 'INTEGRATION_REVOKED']);
    expect((await h.call('GET', '/api/admin/partners/integrations/00000000-0000-4000-8000-000000000000', { token: admin })).body.code).toBe(
      'INTEGRATION_NOT_FOUND',
    );
  });
});
