import { partnersApp } from '../../partners/src/partners.app';
import { webhookDispatcherApp } from '../../webhook-dispatcher/src/webhook-dispatcher.app';
import { type RunningApp, boot } from '../../../test/support/boot';
import { type TestDatabase, createTestDatabase, createTestRedis, serviceEnv } from '../../../test/support/test-env';
import { DeferredForwarder, type TestMerchant, createMerchant, orchestratorInternalUrl } from '../../../test/e2e/partners-support';
import { type Json, PlatformHarness } from './platform-harness';

/**
 * The orchestrator's partner-link routes: the merchant side of connections (connections.manage)
 * and the administration of integrations (partners.manage), with the real auth, orchestrator,
 * partners and dispatcher. API keys go through the maker-checker engine: the administrator asks, a
 * compliance officer approves, the administrator collects the key once.
 */
describe('orchestrator: merchant and admin routes of the partner API', () => {
  const h = new PlatformHarness();
  const forwarder = new DeferredForwarder();
  const redis = createTestRedis();
  let db: TestDatabase;
  let partners: RunningApp;
  let dispatcher: RunningApp;
  let admin: string;
  let checker: string;
  let merchant: TestMerchant;
  let merchantToken: string;
  let created: Json;
  /** the first live key of `created`, issued once the compliance officer approved it */
  let liveKey: string;

  const approve = async (requestId: string) => {
    const res = await h.call('POST', `/api/backoffice/approvals/${requestId}/approve`, {
      token: checker,
      body: { reason: 'checked with the partner' },
    });
    expect([res.status, res.body.status]).toEqual([200, 'EXECUTED']);
    return res.body as Json;
  };
  const collect = (requestId: string, token = admin) =>
    h.call('POST', `/api/backoffice/partners/key-requests/${requestId}/collect`, { token });

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
    await h.authUser('+237691200010', '2580', ['COMPLIANCE']);
    checker = await h.login('+237691200010', '2580');
    merchant = await createMerchant(h.sql, { auth: h.auth.url }, '+237691200001');
    merchantToken = await h.login(merchant.phone, merchant.pin);
    const res = await h.call('POST', '/api/admin/partners/integrations', {
      token: admin,
      body: { name: 'Caisse Rapide', technicalContactEmail: 'tech@pos.example', webhookUrl: 'http://127.0.0.1:9/hooks' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    created = res.body;
    expect(created.apiKeys.live).toBeNull();
    expect(created.liveKeyRequest).toMatchObject({
      action: 'PARTNER_KEY_ISSUE',
      status: 'PENDING',
      fourEyes: true,
      payload: { integrationId: created.integration.id, mode: 'live' },
      maker: { role: 'ADMIN' },
    });
    await approve(created.liveKeyRequest.id);
    const collected = await collect(created.liveKeyRequest.id);
    expect([collected.status, collected.body.mode]).toEqual([201, 'live']);
    liveKey = collected.body.key;
  }, 60_000);
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
      headers: { authorization: `Bearer ${liveKey}` },
      body: { merchantPhone: phone, scopes, requestedReason: 'Till 2' },
    });

  it('admin routes need partners.manage: 401 without a token, 403 for a merchant', async () => {
    expect((await h.call('GET', '/api/admin/partners/integrations')).status).toBe(401);
    const refused = await h.call('GET', '/api/admin/partners/integrations', { token: merchantToken });
    expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN']);
    const listed = await h.call('GET', '/api/admin/partners/integrations', { token: admin });
    expect(listed.body.data.map((i: Json) => i.id)).toContain(created.integration.id);
    expect(created.integration.name).toBe('Caisse Rapide');
    expect(created.apiKeys.test.key).toMatch(/^svc_sk_test_/);
    expect(liveKey).toMatch(/^svc_sk_live_/);
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
      headers: { authorization: `Bearer ${liveKey}` },
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

  it('one administrator alone obtains no live key by any route: creation, issue, rotation, back office, generic submit, self-approval', async () => {
    const fullLiveKey = /svc_sk_live_[A-Za-z0-9_-]{20,}/;
    const made = await h.call('POST', '/api/admin/partners/integrations', {
      token: admin,
      body: { name: 'Solo', technicalContactEmail: 'solo@pos.example', webhookUrl: 'http://127.0.0.1:9/hooks', reason: 'onboarding Solo' },
    });
    expect(made.status).toBe(201);
    expect(JSON.stringify(made.body)).not.toMatch(fullLiveKey);
    expect([made.body.apiKeys.live, made.body.liveKeyRequest.status, made.body.liveKeyRequest.reason]).toEqual([
      null,
      'PENDING',
      'onboarding Solo',
    ]);
    const soloId = made.body.integration.id as string;
    const requestId = made.body.liveKeyRequest.id as string;
    // the live key partners minted with the integration was revoked before the answer: it never worked
    const minted = (await h.call('GET', `/api/admin/partners/integrations/${soloId}/keys`, { token: admin })).body as Json[];
    expect(minted.filter((k) => k.mode === 'live').map((k) => k.status)).toEqual(['revoked']);

    const asks = [
      await h.call('POST', `/api/admin/partners/integrations/${soloId}/keys`, { token: admin, body: { mode: 'live' } }),
      await h.call('POST', `/api/backoffice/partners/integrations/${soloId}/keys`, {
        token: admin,
        body: { mode: 'live', reason: 'again' },
      }),
      await h.call('POST', '/api/backoffice/approvals', {
        token: admin,
        body: { action: 'PARTNER_KEY_ISSUE', payload: { integrationId: soloId, mode: 'live' }, reason: 'again' },
      }),
    ];
    expect(asks.map((a) => [a.status, a.body.code])).toEqual([
      [409, 'APPROVAL_DUPLICATE_PENDING'],
      [409, 'APPROVAL_DUPLICATE_PENDING'],
      [409, 'APPROVAL_DUPLICATE_PENDING'],
    ]);
    // a rotation of a live key that works is a request too, never a key
    const liveKeys = (await h.call('GET', `/api/admin/partners/integrations/${created.integration.id}/keys`, { token: admin }))
      .body as Json[];
    const activeLive = liveKeys.find((k) => k.mode === 'live' && k.status === 'active')!;
    const rotate = await h.call('POST', `/api/admin/partners/integrations/${created.integration.id}/keys/${activeLive.id}/rotate`, {
      token: admin,
      body: {},
    });
    expect([rotate.status, rotate.body.action, rotate.body.status, rotate.body.payload]).toEqual([
      202,
      'PARTNER_KEY_ISSUE',
      'PENDING',
      { integrationId: created.integration.id, mode: 'live', replacesKeyId: activeLive.id },
    ]);
    expect(JSON.stringify(rotate.body)).not.toMatch(fullLiveKey);

    for (const id of [requestId, rotate.body.id]) {
      const self = await h.call('POST', `/api/backoffice/approvals/${id}/approve`, { token: admin, body: {} });
      expect([self.status, self.body.code]).toEqual([403, 'APPROVAL_SELF_DECISION']);
      const early = await collect(id);
      expect([early.status, early.body.code]).toEqual([404, 'PARTNER_KEY_NOT_COLLECTABLE']);
    }
    const bulk = await h.call('POST', '/api/backoffice/approvals/decisions', {
      token: admin,
      body: { ids: [requestId, rotate.body.id], decision: 'APPROVE', reason: 'all mine' },
    });
    expect(bulk.body.results.map((r: Json) => [r.outcome, r.error?.code])).toEqual([
      ['REFUSED', 'APPROVAL_SELF_DECISION'],
      ['REFUSED', 'APPROVAL_SELF_DECISION'],
    ]);
    // nothing changed at partners: Solo has no working live key, the other one still its single one
    const soloKeys = (await h.call('GET', `/api/admin/partners/integrations/${soloId}/keys`, { token: admin })).body as Json[];
    expect(soloKeys.filter((k) => k.mode === 'live' && k.status !== 'revoked')).toEqual([]);
    const otherKeys = (await h.call('GET', `/api/admin/partners/integrations/${created.integration.id}/keys`, { token: admin }))
      .body as Json[];
    expect(otherKeys.filter((k) => k.mode === 'live' && k.status !== 'revoked').map((k) => k.id)).toEqual([activeLive.id]);
    for (const id of [requestId, rotate.body.id]) {
      const rejected = await h.call('POST', `/api/backoffice/approvals/${id}/reject`, { token: checker, body: { reason: 'test over' } });
      expect(rejected.body.status).toBe('REJECTED');
    }
  });

  it('admin: keys (issue, rotate, revoke) on four eyes, webhook endpoint and secret, connection revoke, integration revoke', async () => {
    const id = created.integration.id as string;
    const base = `/api/admin/partners/integrations/${id}`;
    const asked = await h.call('POST', `${base}/keys`, { token: admin, body: { mode: 'test', reason: 'second till' } });
    expect([asked.status, asked.body.action, asked.body.status, asked.body.reason]).toEqual([
      202,
      'PARTNER_KEY_ISSUE',
      'PENDING',
      'second till',
    ]);
    expect(asked.headers.get('cache-control')).toBe('no-store');
    await approve(asked.body.id);
    const issued = await collect(asked.body.id);
    expect([issued.status, issued.body.key]).toEqual([201, expect.stringMatching(/^svc_sk_test_/)]);

    const rotating = await h.call('POST', `${base}/keys/${issued.body.id}/rotate`, { token: admin, body: { overlapSeconds: 0 } });
    expect([rotating.status, rotating.body.payload]).toEqual([
      202,
      { integrationId: id, mode: 'test', replacesKeyId: issued.body.id, overlapSeconds: 0 },
    ]);
    const stillOld = (await h.call('GET', `${base}/keys`, { token: admin })).body.find((k: Json) => k.id === issued.body.id);
    expect(stillOld.status).toBe('active');
    await approve(rotating.body.id);
    const rotated = await collect(rotating.body.id);
    expect(rotated.body.key).toMatch(/^svc_sk_test_/);
    const keys = await h.call('GET', `${base}/keys`, { token: admin });
    expect(keys.body.find((k: Json) => k.id === issued.body.id).status).toBe('expired');
    expect(JSON.stringify(keys.body)).not.toContain(rotated.body.key);

    const revoking = await h.call('POST', `${base}/keys/${rotated.body.id}/revoke`, { token: admin });
    expect([revoking.status, revoking.body.action, revoking.body.status]).toEqual([202, 'PARTNER_KEY_REVOKE', 'PENDING']);
    const works = await h.call('GET', '/api/partners-public/connections', { headers: { authorization: `Bearer ${rotated.body.key}` } });
    expect(works.status).toBe(200);
    await approve(revoking.body.id);
    const stopped = await h.call('GET', '/api/partners-public/connections', { headers: { authorization: `Bearer ${rotated.body.key}` } });
    expect([stopped.status, stopped.body.code]).toEqual([401, 'INVALID_INTEGRATION_CREDENTIALS']);
    // revoking a revoked key changes nothing and needs nobody: answered as it is
    const again = await h.call('POST', `${base}/keys/${rotated.body.id}/revoke`, { token: admin, body: {} });
    expect([again.status, again.body.status]).toEqual([200, 'revoked']);
    expect((await h.call('POST', `${base}/keys/not-a-uuid/revoke`, { token: admin })).body.code).toBe('API_KEY_NOT_FOUND');
    const badReason = await h.call('POST', `${base}/keys`, { token: admin, body: { mode: 'test', reason: 'no' } });
    expect([badReason.status, badReason.body.errors]).toEqual([
      400,
      [expect.objectContaining({ field: 'reason', code: 'INVALID_REASON' })],
    ]);

    // a new webhook signing secret: asked by one, approved by another, collected once by the maker
    const secretAsk = await h.call('POST', `${base}/webhook-secret/rotate`, { token: admin, body: { mode: 'live' } });
    expect([secretAsk.status, secretAsk.body.action, secretAsk.body.status, secretAsk.body.payload]).toEqual([
      202,
      'WEBHOOK_SECRET_ROTATE',
      'PENDING',
      { integrationId: created.integration.id, mode: 'live' },
    ]);
    const secretRequest = `/api/backoffice/partners/secret-requests/${secretAsk.body.id}/collect`;
    expect((await h.call('POST', secretRequest, { token: admin })).body.code).toBe('WEBHOOK_SECRET_NOT_COLLECTABLE');
    const secretTwice = await h.call('POST', `${base}/webhook-secret/rotate`, {
      token: admin,
      body: { mode: 'live', reason: 'again, by mistake' },
    });
    expect([secretTwice.status, secretTwice.body.code]).toEqual([409, 'APPROVAL_DUPLICATE_PENDING']);
    const secretDecided = await approve(secretAsk.body.id);
    expect(secretDecided.result).toMatchObject({ mode: 'live', collectBy: 'maker', previousSecretExpiresAt: expect.any(String) });
    expect(JSON.stringify(secretDecided)).not.toContain('whsec_');
    expect((await h.call('POST', secretRequest, { token: checker })).status).toBe(403);
    const secret = await h.call('POST', secretRequest, { token: admin });
    expect([secret.status, secret.headers.get('cache-control')]).toEqual([201, 'no-store']);
    expect(secret.body).toMatchObject({ mode: 'live', secret: expect.stringMatching(/^whsec_/) });
    expect((await h.call('POST', secretRequest, { token: admin })).body.code).toBe('WEBHOOK_SECRET_NOT_COLLECTABLE');
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
      headers: { authorization: `Bearer ${liveKey}` },
    });
    expect([refused.status, refused.body.code]).toEqual([401, 'INTEGRATION_REVOKED']);
    expect((await h.call('GET', '/api/admin/partners/integrations/00000000-0000-4000-8000-000000000000', { token: admin })).body.code).toBe(
      'INTEGRATION_NOT_FOUND',
    );
  });

  it('configured one-person (APPROVALS_ONE_PERSON_ACTIONS), the key routes answer as they always did, each action recorded', async () => {
    await h.restartOrchestrator({
      PARTNERS_URL: partners.url,
      WEBHOOK_DISPATCHER_URL: dispatcher.url,
      APPROVALS_ONE_PERSON_ACTIONS: 'PARTNER_KEY_ISSUE,PARTNER_KEY_REVOKE,WEBHOOK_SECRET_ROTATE',
    });
    forwarder.target = orchestratorInternalUrl(h.orchestrator);
    const made = await h.call('POST', '/api/admin/partners/integrations', {
      token: admin,
      body: { name: 'Alone', technicalContactEmail: 'alone@pos.example', webhookUrl: 'http://127.0.0.1:9/hooks' },
    });
    expect(made.status).toBe(201);
    expect(made.body.apiKeys.live).toMatchObject({ mode: 'live', status: 'active', key: expect.stringMatching(/^svc_sk_live_/) });
    expect(made.body.liveKeyRequest).toMatchObject({ status: 'EXECUTED', fourEyes: false, checker: { role: 'ADMIN' } });
    const key = made.body.apiKeys.live.key as string;
    expect((await h.call('GET', '/api/partners-public/connections', { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    // the key went to its maker; nobody collects it again
    expect((await collect(made.body.liveKeyRequest.id)).body.code).toBe('PARTNER_KEY_NOT_COLLECTABLE');

    const base = `/api/admin/partners/integrations/${made.body.integration.id}`;
    const issued = await h.call('POST', `${base}/keys`, { token: admin, body: { mode: 'test' } });
    expect([issued.status, issued.body.key]).toEqual([201, expect.stringMatching(/^svc_sk_test_/)]);
    const rotated = await h.call('POST', `${base}/keys/${made.body.apiKeys.live.id}/rotate`, { token: admin, body: { overlapSeconds: 0 } });
    expect([rotated.status, rotated.body.mode, rotated.body.key]).toEqual([201, 'live', expect.stringMatching(/^svc_sk_live_/)]);
    const revoked = await h.call('POST', `${base}/keys/${rotated.body.id}/revoke`, { token: admin });
    expect([revoked.status, revoked.body]).toEqual([200, expect.objectContaining({ id: rotated.body.id, status: 'revoked' })]);
    const secret = await h.call('POST', `${base}/webhook-secret/rotate`, { token: admin, body: { mode: 'test' } });
    expect([secret.status, secret.body]).toEqual([
      200,
      expect.objectContaining({ mode: 'test', secret: expect.stringMatching(/^whsec_/) }),
    ]);
    const recorded = await h.call('GET', `/api/backoffice/approvals?targetId=${made.body.integration.id}&limit=10`, { token: checker });
    expect(recorded.body.items.map((r: Json) => [r.action, r.status, r.fourEyes])).toEqual([
      ['WEBHOOK_SECRET_ROTATE', 'EXECUTED', false],
      ['PARTNER_KEY_ISSUE', 'EXECUTED', false],
      ['PARTNER_KEY_ISSUE', 'EXECUTED', false],
      ['PARTNER_KEY_ISSUE', 'EXECUTED', false],
    ]);
  });
});
