import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { parseSignatureHeader, verify } from '@mm/webhook-signature';
import { openApiOf, undocumented } from '../../../test/support/openapi-departures';
import { type Dispatcher, sleep, waitFor, useDispatcher } from './support/harness';
import { RecordingReceiver } from './support/recording-receiver';

/** What the harness's `api` answers (the body read loosely, as the other assertions do). */
type ApiAnswer = Awaited<ReturnType<Dispatcher['api']>>;

const OVERLAP_MS = 2_000;

describe('secret rotation and the internal API', () => {
  const t = useDispatcher({
    env: { WEBHOOK_SECRET_ROTATION_OVERLAP_MS: String(OVERLAP_MS), WEBHOOK_BACKOFF_BASE_MS: '20' },
  });

  const deliverOne = async (integrationId: string) => {
    const envelope = await t.dispatcher.enqueue(integrationId);
    await waitFor(async () => (await t.dispatcher.event(envelope.id))?.status === 'delivered', 10_000, 'delivered');
    return t.receiver.received.find((r) => r.headers['svc-event-id'] === envelope.id)!;
  };

  it('signs with both secrets during the overlap, and with the new one only after it', async () => {
    const integrationId = randomUUID();
    const oldSecret = await t.dispatcher.setEndpoint(integrationId, t.receiver.url);
    const rotated = await t.dispatcher.api('POST', `/internal/webhooks/endpoints/${integrationId}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const newSecret: string = rotated.body.secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    const overlapEnd = Date.parse(rotated.body.previousSecretExpiresAt);
    expect(overlapEnd - Date.now()).toBeGreaterThan(OVERLAP_MS - 1_000);

    const during = await deliverOne(integrationId);
    expect(parseSignatureHeader(String(during.headers['svc-signature']))!.v1).toHaveLength(2);
    expect(verify(during.headers['svc-signature'], during.rawBody, oldSecret).ok).toBe(true);
    expect(verify(during.headers['svc-signature'], during.rawBody, newSecret).ok).toBe(true);

    await sleep(Math.max(0, overlapEnd - Date.now()) + 100);
    const after = await deliverOne(integrationId);
    expect(parseSignatureHeader(String(after.headers['svc-signature']))!.v1).toHaveLength(1);
    expect(verify(after.headers['svc-signature'], after.rawBody, newSecret).ok).toBe(true);
    expect(verify(after.headers['svc-signature'], after.rawBody, oldSecret)).toEqual({ ok: false, reason: 'no_matching_signature' });
  });

  it('keeps secrets encrypted at rest and returns a secret only at creation and rotation', async () => {
    const integrationId = randomUUID();
    const secret = await t.dispatcher.setEndpoint(integrationId, t.receiver.url);
    const again = await t.dispatcher.api('PUT', `/internal/webhooks/endpoints/${integrationId}`, { url: `${t.receiver.url}/v2` });
    expect(again.status).toBe(200);
    expect(again.body.secret).toBeUndefined();
    expect(again.body).toMatchObject({ integrationId, url: `${t.receiver.url}/v2`, status: 'enabled' });
    const shown = await t.dispatcher.api('GET', `/internal/webhooks/endpoints/${integrationId}`);
    expect(JSON.stringify(shown.body)).not.toMatch(/whsec_/);

    const admin = new Client({ connectionString: t.db.adminUrl });
    await admin.connect();
    try {
      const { rows } = await admin.query(`SELECT secret_ciphertext FROM webhooks.endpoints WHERE integration_id = $1`, [integrationId]);
      const stored: Buffer = rows[0].secret_ciphertext;
      expect(stored.includes(Buffer.from(secret))).toBe(false);
      expect(stored.includes(Buffer.from(secret.slice(6)))).toBe(false);
      expect(stored.length).toBeGreaterThan(28);
    } finally {
      await admin.end();
    }
  });

  it('guards every route with the service credential and answers stable codes for bad input', async () => {
    const id = randomUUID();
    const noKey = await t.dispatcher.running.app.inject({ method: 'GET', url: `/internal/webhooks/endpoints/${id}` });
    expect(noKey.statusCode).toBe(401);
    expect(noKey.json().code).toBe('INVALID_SERVICE_CREDENTIALS');
    const wrongKey = await t.dispatcher.running.app.inject({
      method: 'POST',
      url: `/internal/webhooks/events/${id}/resend`,
      headers: { 'x-service-key': 'x'.repeat(64) },
    });
    expect(wrongKey.statusCode).toBe(401);

    expect((await t.dispatcher.api('GET', `/internal/webhooks/endpoints/${id}`)).body.code).toBe('WEBHOOK_ENDPOINT_NOT_FOUND');
    expect((await t.dispatcher.api('POST', `/internal/webhooks/endpoints/${id}/rotate-secret`)).status).toBe(404);
    expect((await t.dispatcher.api('GET', `/internal/webhooks/events/${id}/attempts`)).body.code).toBe('WEBHOOK_EVENT_NOT_FOUND');
    expect((await t.dispatcher.api('POST', `/internal/webhooks/events/${id}/resend`)).status).toBe(404);
    const badId = await t.dispatcher.api('GET', '/internal/webhooks/events/not-a-uuid');
    expect(badId.status).toBe(400);
    expect(badId.body.errors).toEqual([expect.objectContaining({ field: 'eventId', code: 'INVALID_UUID' })]);
    for (const url of ['ftp://example.com/x', 'not a url', 'http://user:pw@example.com/hook']) {
      const res = await t.dispatcher.api('PUT', `/internal/webhooks/endpoints/${id}`, { url });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_WEBHOOK_URL');
    }
    const badEvent = await t.dispatcher.api('POST', '/internal/webhooks/events', {
      integrationId: id,
      event: 'order.paid',
      id: 'nope',
      data: {},
    });
    expect(badEvent.status).toBe(400);
    expect(badEvent.body.code).toBe('VALIDATION_ERROR');
    const badWindow = await t.dispatcher.api('POST', '/internal/webhooks/events/resend-undelivered', {
      from: '2026-01-02T00:00:00Z',
      to: '2026-01-01T00:00:00Z',
    });
    expect(badWindow.body.code).toBe('INVALID_TIME_WINDOW');
  });

  it('marks an event failed after 8 attempts (7 retries), then recovers it with a resend of the failed window', async () => {
    const integrationId = randomUUID();
    const failing = await new RecordingReceiver(() => ({ status: 500, body: 'database is down' })).start();
    try {
      await t.dispatcher.setEndpoint(integrationId, failing.url);
      const from = new Date(Date.now() - 1_000).toISOString();
      const enqueued = await t.dispatcher.api('POST', '/internal/webhooks/events', {
        integrationId,
        event: 'order.paid',
        id: randomUUID(),
        data: { orderId: randomUUID(), transactionId: 'TX-9', amount: 10, currencyCode: 'XAF', paidAt: new Date().toISOString() },
      });
      expect(enqueued.status).toBe(202);
      const eventId: string = enqueued.body.eventId;
      await waitFor(async () => (await t.dispatcher.event(eventId))?.status === 'failed', 15_000, 'failed');
      const attempts = await t.dispatcher.attempts(eventId);
      expect(attempts).toHaveLength(8);
      expect(
        attempts.every(
          (a: { statusCode: number; responseExcerpt: string }) => a.statusCode === 500 && a.responseExcerpt === 'database is down',
        ),
      ).toBe(true);
      expect(failing.received).toHaveLength(8);
      expect((await t.dispatcher.event(eventId)).failedAt).not.toBeNull();

      failing.setScript(() => ({ status: 200 }));
      const resent = await t.dispatcher.api('POST', '/internal/webhooks/events/resend-undelivered', {
        from,
        to: new Date(Date.now() + 1_000).toISOString(),
        integrationId,
      });
      expect(resent.status).toBe(202);
      expect(resent.body.eventIds).toEqual([eventId]);
      await waitFor(async () => (await t.dispatcher.event(eventId))?.status === 'delivered', 10_000, 'delivered after resend');
      expect((await t.dispatcher.attempts(eventId)).at(-1)).toMatchObject({ attemptNumber: 9, statusCode: 200, outcome: 'success' });
      expect(failing.received.every((r) => r.rawBody.equals(failing.received[0].rawBody))).toBe(true);
    } finally {
      await failing.stop();
    }
  });

  it('answers exactly what its OpenAPI document says: every success body of the endpoint and event routes', async () => {
    const doc = await openApiOf(t.dispatcher.running.app);
    const ENDPOINT = '/internal/webhooks/endpoints/{integrationId}';
    const EVENTS = '/internal/webhooks/events';
    const answers: Array<[string, string, ApiAnswer]> = [];
    const call = async (method: 'GET' | 'POST' | 'PUT', url: string, documented: string, payload?: unknown) => {
      const res = await t.dispatcher.api(method, url, payload);
      answers.push([method, documented, res]);
      return res;
    };
    const integrationId = randomUUID();
    const endpoint = `/internal/webhooks/endpoints/${integrationId}`;
    const from = new Date(Date.now() - 1_000).toISOString();
    const created = await call('PUT', endpoint, ENDPOINT, { url: t.receiver.url });
    await call('PUT', endpoint, ENDPOINT, { url: `${t.receiver.url}/v2` }); // re-pointed: no secret
    await call('POST', `${endpoint}/rotate-secret`, `${ENDPOINT}/rotate-secret`);
    await call('GET', endpoint, ENDPOINT); // previousSecretExpiresAt filled in
    await call('POST', `${endpoint}/enable`, `${ENDPOINT}/enable`); // already enabled: nothing replayed
    await call('GET', `${endpoint}/health-events`, `${ENDPOINT}/health-events`);
    const data = { orderId: randomUUID(), transactionId: 'TX-7', amount: 10, currencyCode: 'XAF', paidAt: new Date().toISOString() };
    const queued = await call('POST', EVENTS, EVENTS, { integrationId, event: 'order.paid', id: randomUUID(), data });
    const eventId: string = queued.body.eventId;
    await waitFor(async () => (await t.dispatcher.event(eventId))?.status === 'delivered', 10_000, 'delivered');
    await call('GET', `${EVENTS}/${eventId}`, `${EVENTS}/{eventId}`);
    const attempts = await call('GET', `${EVENTS}/${eventId}/attempts`, `${EVENTS}/{eventId}/attempts`);
    await call('POST', `${EVENTS}/${eventId}/resend`, `${EVENTS}/{eventId}/resend`);
    // An event for an integration without an endpoint is held: the window resend picks it up.
    const orphan = randomUUID();
    const held = await call('POST', EVENTS, EVENTS, { integrationId: orphan, event: 'order.paid', id: randomUUID(), data });
    await waitFor(async () => (await t.dispatcher.event(held.body.eventId))?.status === 'held', 10_000, 'held');
    await call('GET', `${EVENTS}/${held.body.eventId}`, `${EVENTS}/{eventId}`); // never attempted: the nullable times are null
    const window = await call('POST', `${EVENTS}/resend-undelivered`, `${EVENTS}/resend-undelivered`, {
      from,
      to: new Date(Date.now() + 1_000).toISOString(),
      integrationId: orphan,
    });

    expect(answers.map(([method, path, res]) => `${method} ${path} ${res.status}`)).toEqual([
      `PUT ${ENDPOINT} 200`,
      `PUT ${ENDPOINT} 200`,
      `POST ${ENDPOINT}/rotate-secret 200`,
      `GET ${ENDPOINT} 200`,
      `POST ${ENDPOINT}/enable 200`,
      `GET ${ENDPOINT}/health-events 200`,
      `POST ${EVENTS} 202`,
      `GET ${EVENTS}/{eventId} 200`,
      `GET ${EVENTS}/{eventId}/attempts 200`,
      `POST ${EVENTS}/{eventId}/resend 202`,
      `POST ${EVENTS} 202`,
      `GET ${EVENTS}/{eventId} 200`,
      `POST ${EVENTS}/resend-undelivered 202`,
    ]);
    // The optional and array fields were really there to be checked.
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(answers[3][2].body.previousSecretExpiresAt).toEqual(expect.any(String));
    expect(attempts.body.length).toBeGreaterThan(0);
    expect(window.body.eventIds).toEqual([held.body.eventId]);
    expect(answers.flatMap(([method, path, res]) => undocumented(doc, method, path, res))).toEqual([]);

    // …and the comparison has teeth: a field too many, one missing, a wrong type, an unknown status.
    const { deliveredAt: _dropped, ...event } = answers[7][2].body;
    expect(
      undocumented(doc, 'GET', `${EVENTS}/{eventId}`, { status: 200, body: { ...event, attemptCount: 1.5, status: 'lost', extra: 1 } }),
    ).toEqual([
      `GET ${EVENTS}/{eventId} 200.extra: not documented`,
      `GET ${EVENTS}/{eventId} 200.deliveredAt: required, missing`,
      `GET ${EVENTS}/{eventId} 200.status: "lost" is not in the enum`,
      `GET ${EVENTS}/{eventId} 200.attemptCount: 1.5 is not of type integer`,
    ]);
    expect(undocumented(doc, 'POST', EVENTS, { status: 201, body: queued.body })).toEqual([`POST ${EVENTS} 201: status not documented`]);
  });
});
