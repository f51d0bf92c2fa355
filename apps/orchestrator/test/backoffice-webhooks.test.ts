import { randomUUID } from 'node:crypto';
import { E2E_ADMIN } from '../../../test/e2e/partners-support';
import { type Json, WebhookOpsPlatform, until } from './backoffice-webhooks-platform';

const BASE = '/api/backoffice/webhooks';

describe('back office: webhooks through /api (staff roles, no service key)', () => {
  const p = new WebhookOpsPlatform();
  let admin: string;
  let support: string;
  let auditor: string;
  let compliance: string;
  let integrationId: string;
  let testKey: string;
  let phones = 0;

  beforeAll(async () => {
    await p.start();
    admin = await p.login(E2E_ADMIN.phone, E2E_ADMIN.pin);
    support = await p.staff(admin, 'SUPPORT', '+237690810001');
    auditor = await p.staff(admin, 'AUDITOR', '+237690810002');
    compliance = await p.staff(admin, 'COMPLIANCE', '+237690810003');
    const created = await p.call('POST', '/api/admin/partners/integrations', {
      token: admin,
      body: { name: 'Caisse Ops', technicalContactEmail: 'ops@caisse.example', webhookUrl: p.receiver.url, testWebhookUrl: p.receiver.url },
    });
    expect(created.status).toBe(201);
    integrationId = created.body.integration.id;
    testKey = created.body.apiKeys.test.key;
    p.receiver.secrets = [created.body.webhookSecrets.test];
  }, 60_000);
  afterAll(() => p.stop());

  /** One test-mode `connection.activated` event (a connection requested and accepted); its id once the dispatcher has it. */
  async function connectionEvent(): Promise<string> {
    const phone = `+2376908200${String(++phones).padStart(2, '0')}`;
    const requested = await p.call('POST', '/api/partners-public/connections/request', {
      headers: { authorization: `Bearer ${testKey}` },
      body: { merchantPhone: phone, scopes: ['orders.write'] },
    });
    expect(requested.status).toBe(200);
    const activated = await p.call('POST', `/api/partners-public/test-helpers/connections/${requested.body.connectionId}/activate`, {
      headers: { authorization: `Bearer ${testKey}` },
    });
    expect(activated.status).toBe(200);
    const row = await until('the event recorded by partners', async () => {
      const r = await p.sql.query(`SELECT id FROM partners.events WHERE subject_id = $1 AND type = 'connection.activated'`, [
        requested.body.connectionId,
      ]);
      return r.rows[0] as { id: string } | undefined;
    });
    return row.id;
  }

  const log = (eventId: string, token = support) => p.call('GET', `${BASE}/events/${eventId}`, { token });
  const statusOf = async (eventId: string) => (await log(eventId)).body.event?.status as string | undefined;
  const waitStatus = (eventId: string, status: string) =>
    until(`event ${eventId} ${status}`, async () => (await statusOf(eventId)) === status);

  it('the delivery log shows every attempt: time, URL, HTTP status, latency, response excerpt, error code', async () => {
    p.receiver.failing = { status: 503, body: 'maintenance window: try later', times: 2 };
    const eventId = await connectionEvent();
    await waitStatus(eventId, 'delivered');

    const res = await log(eventId);
    expect(res.status).toBe(200);
    expect(res.body.event).toMatchObject({
      id: eventId,
      integrationId,
      mode: 'test',
      event: 'connection.activated',
      status: 'delivered',
      attemptCount: 3,
    });
    const attempts = res.body.attempts as Json[];
    expect(attempts.map((a) => [a.attemptNumber, a.outcome, a.statusCode, a.errorCode])).toEqual([
      [1, 'failure', 503, 'WEBHOOK_RECEIVER_HTTP_ERROR'],
      [2, 'failure', 503, 'WEBHOOK_RECEIVER_HTTP_ERROR'],
      [3, 'success', 200, null],
    ]);
    for (const a of attempts) {
      expect(a.url).toBe(p.receiver.url);
      expect(Number.isInteger(a.latencyMs) && a.latencyMs >= 0).toBe(true);
      expect(Date.parse(a.attemptedAt)).not.toBeNaN();
    }
    expect(attempts[0].responseExcerpt).toBe('maintenance window: try later');
    expect(attempts[2].responseExcerpt).toBe('');

    // listed with its state, filtered by type and status
    const listed = await p.call('GET', `${BASE}/integrations/${integrationId}/events?eventType=connection.activated&status=delivered`, {
      token: auditor,
    });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((e: Json) => e.id)).toContain(eventId);
    const none = await p.call('GET', `${BASE}/integrations/${integrationId}/events?status=failed&mode=test`, { token: auditor });
    expect(none.body.data.map((e: Json) => e.id)).not.toContain(eventId);
  });

  it('resend: one event delivered again; the same idempotency key sent again starts no second run', async () => {
    const eventId = await connectionEvent();
    await waitStatus(eventId, 'delivered');
    expect(p.receiver.delivered(eventId)).toBe(1);

    const key = randomUUID();
    const first = await p.call('POST', `${BASE}/events/${eventId}/resend`, { token: support, body: { idempotencyKey: key } });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ eventId, jobId: `${eventId}-resend-1`, repeated: false });
    await until('the resend delivered', async () => p.receiver.delivered(eventId) === 2);

    const again = await p.call('POST', `${BASE}/events/${eventId}/resend`, { token: support, body: { idempotencyKey: key } });
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ eventId, jobId: `${eventId}-resend-1`, repeated: true });
    const after = await log(eventId);
    expect(after.body.event).toMatchObject({ resendCount: 1, attemptCount: 2, status: 'delivered' });

    // an event whose delivery is still going on is refused: a second run beside it would deliver it twice
    await p.sql.query(`UPDATE webhooks.events SET status = 'pending' WHERE id = $1`, [eventId]);
    const busy = await p.call('POST', `${BASE}/events/${eventId}/resend`, { token: support, body: { idempotencyKey: randomUUID() } });
    expect([busy.status, busy.body.code]).toEqual([409, 'WEBHOOK_EVENT_PENDING']);
    expect((await log(eventId)).body.event).toMatchObject({ resendCount: 1, status: 'pending' });
    await p.sql.query(`UPDATE webhooks.events SET status = 'delivered' WHERE id = $1`, [eventId]);

    // the key belongs to that event; an unknown event is a 404; no key is a 400
    const other = await connectionEvent();
    const reused = await p.call('POST', `${BASE}/events/${other}/resend`, { token: support, body: { idempotencyKey: key } });
    expect([reused.status, reused.body.code]).toEqual([409, 'WEBHOOK_RESEND_KEY_REUSED']);
    const unknown = await p.call('POST', `${BASE}/events/${randomUUID()}/resend`, {
      token: support,
      body: { idempotencyKey: randomUUID() },
    });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'WEBHOOK_EVENT_NOT_FOUND']);
    const noKey = await p.call('POST', `${BASE}/events/${eventId}/resend`, { token: support, body: {} });
    expect([noKey.status, noKey.body.code, noKey.body.errors?.[0]?.field]).toEqual([400, 'VALIDATION_ERROR', 'idempotencyKey']);
  });

  it('recover since a time queues only the undelivered events received since then', async () => {
    p.receiver.failing = { status: 500, body: 'down', times: Infinity };
    const before = await connectionEvent();
    await waitStatus(before, 'failed');
    await new Promise((r) => setTimeout(r, 20));
    const since = new Date().toISOString();
    const failed = await connectionEvent();
    await waitStatus(failed, 'failed');
    p.receiver.failing = null;
    const delivered = await connectionEvent();
    await waitStatus(delivered, 'delivered');

    const undelivered = await p.call(
      'GET',
      `${BASE}/integrations/${integrationId}/events?status=undelivered&since=${encodeURIComponent(since)}`,
      {
        token: auditor,
      },
    );
    expect(undelivered.body.data.map((e: Json) => e.id)).toEqual([failed]);

    const res = await p.call('POST', `${BASE}/integrations/${integrationId}/recover`, { token: support, body: { since } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ queued: 1, since });
    await waitStatus(failed, 'delivered');
    expect(p.receiver.delivered(failed)).toBe(1);
    expect(await statusOf(before)).toBe('failed');
    expect(p.receiver.delivered(delivered)).toBe(1);
    expect((await log(delivered)).body.event.resendCount).toBe(0);

    const tooOld = await p.call('POST', `${BASE}/integrations/${integrationId}/recover`, {
      token: support,
      body: { since: new Date(Date.now() - 40 * 86_400_000).toISOString() },
    });
    expect([tooOld.status, tooOld.body.code]).toEqual([400, 'INVALID_TIME_WINDOW']);
  });

  it('a disabled endpoint re-enabled through /api: its held events reach the receiver exactly once', async () => {
    const endpoints = await p.call('GET', `${BASE}/integrations/${integrationId}/endpoints`, { token: auditor });
    const testEndpoint = endpoints.body.find((e: Json) => e.mode === 'test');
    await p.sql.query(
      `UPDATE webhooks.endpoints SET status = 'disabled', disabled_at = now(), disabled_reason = 'failing for 3 days' WHERE integration_id = $1`,
      [testEndpoint.endpointId],
    );
    const held = [await connectionEvent(), await connectionEvent()];
    for (const id of held) await waitStatus(id, 'held');
    for (const id of held) expect(p.receiver.delivered(id)).toBe(0);

    const state = await p.call('GET', `${BASE}/integrations/${integrationId}/endpoints`, { token: auditor });
    expect(state.status).toBe(200);
    expect(state.body.find((e: Json) => e.mode === 'test')).toMatchObject({
      status: 'disabled',
      disabledReason: 'failing for 3 days',
      disabledAt: expect.any(String),
      held: 2,
      url: p.receiver.url,
    });
    expect(state.body.find((e: Json) => e.mode === 'live')).toMatchObject({ status: 'enabled', held: 0 });

    const enabled = await p.call('POST', `${BASE}/integrations/${integrationId}/endpoints/test/enable`, { token: support });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ replayed: 2, endpoint: { mode: 'test', status: 'enabled', disabledAt: null, held: 0 } });
    expect(enabled.body.endpoint.history.map((h: Json) => h.kind)).toEqual(['enabled']);
    for (const id of held) await waitStatus(id, 'delivered');

    // enabling again replays nothing: each held event went out once
    const again = await p.call('POST', `${BASE}/integrations/${integrationId}/endpoints/test/enable`, { token: support });
    expect(again.body.replayed).toBe(0);
    for (const id of held) expect(p.receiver.delivered(id)).toBe(1);

    const badMode = await p.call('POST', `${BASE}/integrations/${integrationId}/endpoints/prod/enable`, { token: support });
    expect([badMode.status, badMode.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it("an order's webhooks for the payment story: the order.paid event and its delivery log", async () => {
    const requested = await p.call('POST', '/api/partners-public/connections/request', {
      headers: { authorization: `Bearer ${testKey}` },
      body: { merchantPhone: '+237690829999', scopes: ['orders.write', 'orders.read'] },
    });
    const activated = await p.call('POST', `/api/partners-public/test-helpers/connections/${requested.body.connectionId}/activate`, {
      headers: { authorization: `Bearer ${testKey}` },
    });
    const order = await p.call('POST', '/api/partners-public/orders', {
      headers: { authorization: `Bearer ${testKey}`, 'idempotency-key': randomUUID() },
      body: { merchantId: activated.body.merchantId, amount: 2500, currencyCode: 'XAF', ttlSeconds: 300 },
    });
    expect(order.status).toBe(201);
    const orderId = order.body.orderId as string;
    await p.call('POST', `/api/partners-public/test-helpers/orders/${orderId}/pay`, { headers: { authorization: `Bearer ${testKey}` } });
    const story = await until('order.paid delivered', async () => {
      const res = await p.call('GET', `${BASE}/orders/${orderId}`, { token: auditor });
      return res.body.events?.[0]?.delivery?.event.status === 'delivered' && res.body;
    });
    expect(story.orderId).toBe(orderId);
    expect(story.events).toHaveLength(1);
    expect(story.events[0].ref).toMatchObject({ type: 'order.paid', subjectId: orderId, integrationId, mode: 'test' });
    expect(story.events[0].delivery.attempts.at(-1)).toMatchObject({ outcome: 'success', statusCode: 200 });
    const unknown = await p.call('GET', `${BASE}/orders/${randomUUID()}`, { token: auditor });
    expect(unknown.body.events).toEqual([]);
  });

  it('roles: SUPPORT resends and enables, AUDITOR and COMPLIANCE only read; a refusal names the permission', async () => {
    const eventId = await connectionEvent();
    await waitStatus(eventId, 'delivered');
    for (const token of [auditor, compliance]) {
      expect((await p.call('GET', `${BASE}/integrations/${integrationId}/events`, { token })).status).toBe(200);
      expect((await p.call('GET', `${BASE}/integrations/${integrationId}/endpoints`, { token })).status).toBe(200);
      expect((await log(eventId, token)).status).toBe(200);
      for (const [path, body] of [
        [`${BASE}/events/${eventId}/resend`, { idempotencyKey: randomUUID() }],
        [`${BASE}/integrations/${integrationId}/recover`, { since: new Date(Date.now() - 60_000).toISOString() }],
        [`${BASE}/integrations/${integrationId}/endpoints/test/enable`, undefined],
      ] as const) {
        const res = await p.call('POST', path, { token, body });
        expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
        expect(res.body.message).toContain('webhooks.manage');
      }
    }
    const anonymous = await p.call('GET', `${BASE}/integrations/${integrationId}/events`);
    expect(anonymous.status).toBe(401);
    const unknown = await p.call('GET', `${BASE}/integrations/${randomUUID()}/events`, { token: support });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'INTEGRATION_NOT_FOUND']);
    const malformed = await p.call('GET', `${BASE}/integrations/${integrationId}/events?status=lost`, { token: support });
    expect([malformed.status, malformed.body.code, malformed.body.errors?.[0]?.field]).toEqual([400, 'VALIDATION_ERROR', 'status']);
  });
});
