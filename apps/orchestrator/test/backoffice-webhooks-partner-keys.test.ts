import { randomUUID } from 'node:crypto';
import { E2E_ADMIN } from '../../../test/e2e/partners-support';
import { type Json, WebhookOpsPlatform } from './backoffice-webhooks-platform';

const BASE = '/api/backoffice/partners';

/**
 * Partner integrations for staff
 * (docs/partners.md "The back office: integrations, keys on four eyes, webhook deliveries"): the
 * list with connections, one integration with keys and endpoints, and API keys issued and revoked
 * on four eyes, the issued key shown once to its maker and never stored readable with the request.
 */
describe('back office: partner integrations and their keys on four eyes', () => {
  const p = new WebhookOpsPlatform();
  let maker: string;
  let checker: string;
  let support: string;
  let auditor: string;
  let otherAdmin: string;
  let integrationId: string;
  let testKey: string;

  beforeAll(async () => {
    await p.start();
    maker = await p.login(E2E_ADMIN.phone, E2E_ADMIN.pin);
    checker = await p.staff(maker, 'COMPLIANCE', '+237690830001');
    support = await p.staff(maker, 'SUPPORT', '+237690830002');
    auditor = await p.staff(maker, 'AUDITOR', '+237690830003');
    otherAdmin = await p.authUser('+237690830004', '2580', ['ADMIN']);
    const created = await p.call('POST', '/api/admin/partners/integrations', {
      token: maker,
      body: { name: 'Kiosque Keys', technicalContactEmail: 'keys@kiosque.example', webhookUrl: p.receiver.url },
    });
    expect(created.status).toBe(201);
    integrationId = created.body.integration.id;
    testKey = created.body.apiKeys.test.key;
  }, 60_000);
  afterAll(() => p.stop());

  const partnerCall = (key: string) => p.call('GET', '/api/partners-public/connections', { headers: { authorization: `Bearer ${key}` } });

  it('lists integrations with their endpoints and connections; one integration with keys (hints) and endpoints', async () => {
    const requested = await p.call('POST', '/api/partners-public/connections/request', {
      headers: { authorization: `Bearer ${testKey}` },
      body: { merchantPhone: '+237690839999', scopes: ['orders.write'] },
    });
    await p.call('POST', `/api/partners-public/test-helpers/connections/${requested.body.connectionId}/activate`, {
      headers: { authorization: `Bearer ${testKey}` },
    });

    const list = await p.call('GET', `${BASE}/integrations`, { token: auditor });
    expect(list.status).toBe(200);
    const listed = list.body.data.find((i: Json) => i.id === integrationId);
    expect(listed).toMatchObject({
      name: 'Kiosque Keys',
      status: 'active',
      endpointIds: { live: integrationId },
      connections: { pending: 0, active: 0 },
    });

    const detail = await p.call('GET', `${BASE}/integrations/${integrationId}`, { token: support });
    expect(detail.status).toBe(200);
    expect(detail.body.keys.map((k: Json) => k.mode).sort()).toEqual(['live', 'test']);
    expect(JSON.stringify(detail.body)).not.toContain(testKey);
    expect(detail.body.endpoints.map((e: Json) => [e.mode, e.status, e.url])).toEqual([
      ['live', 'enabled', p.receiver.url],
      ['test', 'enabled', p.receiver.url],
    ]);

    const connections = await p.call('GET', `${BASE}/integrations/${integrationId}/connections?mode=test`, { token: auditor });
    expect(connections.status).toBe(200);
    expect(connections.body.data).toEqual([
      expect.objectContaining({
        id: requested.body.connectionId,
        mode: 'test',
        status: 'active',
        scopes: ['orders.write'],
        merchantId: null,
      }),
    ]);
    const unknown = await p.call('GET', `${BASE}/integrations/${randomUUID()}`, { token: support });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'INTEGRATION_NOT_FOUND']);
  });

  it('a key is issued only when a compliance officer approves, and shown once to its maker alone', async () => {
    const asked = await p.call('POST', `${BASE}/integrations/${integrationId}/keys`, {
      token: maker,
      body: { mode: 'test', reason: 'second till needs its own key' },
    });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({
      action: 'PARTNER_KEY_ISSUE',
      status: 'PENDING',
      target: { type: 'integration', id: integrationId },
    });
    const approvalId = asked.body.id as string;

    // the same request again is refused while the first waits; the maker cannot approve it nor collect anything yet
    const twice = await p.call('POST', `${BASE}/integrations/${integrationId}/keys`, {
      token: maker,
      body: { mode: 'test', reason: 'again' },
    });
    expect([twice.status, twice.body.code]).toEqual([409, 'APPROVAL_DUPLICATE_PENDING']);
    const self = await p.call('POST', `/api/backoffice/approvals/${approvalId}/approve`, { token: maker, body: {} });
    expect([self.status, self.body.code]).toEqual([403, 'APPROVAL_SELF_DECISION']);
    const early = await p.call('POST', `${BASE}/key-requests/${approvalId}/collect`, { token: maker });
    expect([early.status, early.body.code]).toEqual([404, 'PARTNER_KEY_NOT_COLLECTABLE']);
    const keysBefore = await p.call('GET', `${BASE}/integrations/${integrationId}`, { token: support });
    expect(keysBefore.body.keys).toHaveLength(2);

    const approved = await p.call('POST', `/api/backoffice/approvals/${approvalId}/approve`, {
      token: checker,
      body: { reason: 'checked with the partner' },
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'EXECUTED', result: { keyId: expect.any(String), mode: 'test', collectBy: 'maker' } });

    // neither the checker nor another administrator collects it
    const byChecker = await p.call('POST', `${BASE}/key-requests/${approvalId}/collect`, { token: checker });
    expect([byChecker.status, byChecker.body.code]).toEqual([403, 'FORBIDDEN']);
    const byOtherAdmin = await p.call('POST', `${BASE}/key-requests/${approvalId}/collect`, { token: otherAdmin });
    expect([byOtherAdmin.status, byOtherAdmin.body.code]).toEqual([403, 'PARTNER_KEY_COLLECTOR_NOT_MAKER']);
    const collected = await p.call('POST', `${BASE}/key-requests/${approvalId}/collect`, { token: maker });
    expect(collected.status).toBe(201);
    expect(collected.body).toMatchObject({
      id: approved.body.result.keyId,
      mode: 'test',
      status: 'active',
      key: expect.stringMatching(/^svc_sk_test_/),
    });
    const key = collected.body.key as string;
    const again = await p.call('POST', `${BASE}/key-requests/${approvalId}/collect`, { token: maker });
    expect([again.status, again.body.code]).toEqual([404, 'PARTNER_KEY_NOT_COLLECTABLE']);

    // the key works, and is written nowhere readable in the request
    expect((await partnerCall(key)).status).toBe(200);
    const view = await p.call('GET', `/api/backoffice/approvals/${approvalId}`, { token: checker });
    expect(view.status).toBe(200);
    expect(JSON.stringify(view.body)).not.toContain(key);
    const stored = await p.sql.query(
      `SELECT payload::text || coalesce(result::text, '') || coalesce(prepared::text, '') AS t FROM orchestrator.approval_requests WHERE id = $1`,
      [approvalId],
    );
    expect(stored.rows[0].t).not.toContain(key);
    expect(stored.rows[0].t).toContain(approved.body.result.keyId);
  });

  it('a key is revoked only when a compliance officer approves', async () => {
    const keys = (await p.call('GET', `${BASE}/integrations/${integrationId}`, { token: support })).body.keys as Json[];
    const testKeyId = keys.find((k) => k.mode === 'test' && k.hint.endsWith(testKey.slice(-4))).id as string;
    const asked = await p.call('POST', `${BASE}/integrations/${integrationId}/keys/${testKeyId}/revoke`, {
      token: maker,
      body: { reason: 'key seen in a support ticket' },
    });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ action: 'PARTNER_KEY_REVOKE', status: 'PENDING', target: { type: 'api-key', id: testKeyId } });
    expect((await partnerCall(testKey)).status).toBe(200);

    const approved = await p.call('POST', `/api/backoffice/approvals/${asked.body.id}/approve`, { token: checker, body: {} });
    expect(approved.body).toMatchObject({ status: 'EXECUTED', result: { keyId: testKeyId, status: 'revoked' } });
    expect((await partnerCall(testKey)).status).toBe(401);

    const revokedAgain = await p.call('POST', `${BASE}/integrations/${integrationId}/keys/${testKeyId}/revoke`, {
      token: maker,
      body: { reason: 'again' },
    });
    expect([revokedAgain.status, revokedAgain.body.code]).toEqual([409, 'CONFLICT']);
    const unknownKey = await p.call('POST', `${BASE}/integrations/${integrationId}/keys/${randomUUID()}/revoke`, {
      token: maker,
      body: { reason: 'no such key' },
    });
    expect([unknownKey.status, unknownKey.body.code]).toEqual([404, 'API_KEY_NOT_FOUND']);
    const short = await p.call('POST', `${BASE}/integrations/${integrationId}/keys/${testKeyId}/revoke`, {
      token: maker,
      body: { reason: 'x' },
    });
    expect([short.status, short.body.code, short.body.errors?.[0]?.field]).toEqual([400, 'VALIDATION_ERROR', 'reason']);
  });

  it('roles: only administrators ask for keys (403 names partners.manage); support and auditors read', async () => {
    for (const token of [support, auditor]) {
      const res = await p.call('POST', `${BASE}/integrations/${integrationId}/keys`, {
        token,
        body: { mode: 'live', reason: 'for the new till' },
      });
      expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
      expect(res.body.message).toContain('partners.manage');
      expect((await p.call('GET', `${BASE}/integrations/${integrationId}/connections`, { token })).status).toBe(200);
    }
    const bad = await p.call('POST', `${BASE}/integrations/${integrationId}/keys`, {
      token: maker,
      body: { mode: 'prod', reason: 'for the new till' },
    });
    expect([bad.status, bad.body.code, bad.body.errors?.[0]?.field]).toEqual([400, 'VALIDATION_ERROR', 'mode']);
  });
});
