import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { verify } from '@mm/webhook-signature';
import { type TestDatabase, createTestDatabase, createTestRedis } from '../../../test/support/test-env';
import { DnsStub } from './support/dns-stub';
import { type Dispatcher, startDispatcher, waitFor } from './support/harness';
import { RecordingReceiver } from './support/recording-receiver';

interface Attempt {
  attemptNumber: number;
  statusCode: number | null;
  error: string | null;
  errorCode: string | null;
  outcome: string;
}

/**
 * Deliveries that fail before any HTTP request (the stored secret does not decrypt, the name does not
 * resolve, the SSRF policy refuses the address) are attempts like the others: in the attempt log with
 * a stable code, counted in the event's attemptCount, and counted towards the endpoint's health.
 */
describe('webhook attempts that fail before the request', () => {
  const redis = [createTestRedis(), createTestRedis()];
  let db: TestDatabase;
  let admin: Client;
  let receiver: RecordingReceiver;

  beforeAll(async () => {
    db = await createTestDatabase();
    admin = new Client({ connectionString: db.adminUrl });
    await admin.connect();
    receiver = await new RecordingReceiver().start();
  });
  afterAll(async () => {
    await admin?.end();
    await receiver?.stop();
    await db?.drop();
    for (const r of redis) await r.flush();
  });

  const endpointOf = async (d: Dispatcher, integrationId: string) =>
    (await d.api('GET', `/internal/webhooks/endpoints/${integrationId}`)).body;
  const receivedFor = (eventId: string) => receiver.received.filter((r) => r.headers['svc-event-id'] === eventId);

  it('a secret stored under another key: every attempt recorded as WEBHOOK_SECRET_UNREADABLE, counted, the endpoint failing then disabled; rotating the secret recovers', async () => {
    const integrationId = randomUUID();
    // The secret is stored by a dispatcher with one key …
    const before = await startDispatcher(db, redis[0], { WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
    try {
      await before.setEndpoint(integrationId, receiver.url);
    } finally {
      await before.close();
    }
    // … and read by one started with another (a lost or changed WEBHOOK_SECRET_ENCRYPTION_KEY).
    const d = await startDispatcher(db, redis[0], {
      WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_BACKOFF_BASE_MS: '20',
      WEBHOOK_ENDPOINT_DISABLE_AFTER_MS: '3600000',
    });
    try {
      const envelope = await d.enqueue(integrationId);
      await waitFor(async () => (await d.event(envelope.id))?.status === 'failed', 15_000, 'event failed');
      const attempts: Attempt[] = await d.attempts(envelope.id);
      expect(attempts.map((a) => a.attemptNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      for (const a of attempts) {
        expect(a).toMatchObject({ statusCode: null, outcome: 'failure', errorCode: 'WEBHOOK_SECRET_UNREADABLE' });
        expect(a.error).toMatch(/^secret: /);
      }
      expect(await d.event(envelope.id)).toMatchObject({ status: 'failed', attemptCount: 8 });
      expect(receivedFor(envelope.id)).toHaveLength(0);
      expect(await endpointOf(d, integrationId)).toMatchObject({ status: 'enabled', failingSince: expect.any(String) });

      // Failing for longer than the disable window (one hour here): the next failure disables the
      // endpoint and holds the event, as a failed HTTP attempt would.
      await admin.query(`UPDATE webhooks.endpoints SET failing_since = now() - interval '2 hours' WHERE integration_id = $1`, [
        integrationId,
      ]);
      expect((await d.api('POST', `/internal/webhooks/events/${envelope.id}/resend`)).status).toBe(202);
      await waitFor(async () => (await d.event(envelope.id))?.status === 'held', 10_000, 'event held');
      expect(await d.event(envelope.id)).toMatchObject({ attemptCount: 9 });
      expect((await d.attempts(envelope.id))[8]).toMatchObject({ attemptNumber: 9, errorCode: 'WEBHOOK_SECRET_UNREADABLE' });
      expect(await endpointOf(d, integrationId)).toMatchObject({ status: 'disabled', disabledReason: expect.any(String) });
      const health = await d.api('GET', `/internal/webhooks/endpoints/${integrationId}/health-events`);
      expect(health.body).toEqual([expect.objectContaining({ kind: 'disabled' })]);

      // The way out without the old key: a new secret (the unreadable one is not used to sign) and a re-enable.
      const rotated = await d.api('POST', `/internal/webhooks/endpoints/${integrationId}/rotate-secret`);
      expect(rotated.status).toBe(200);
      expect((await d.api('POST', `/internal/webhooks/endpoints/${integrationId}/enable`)).body).toMatchObject({ replayed: 1 });
      await waitFor(async () => (await d.event(envelope.id))?.status === 'delivered', 10_000, 'delivered');
      const [request] = receivedFor(envelope.id);
      expect(verify(request.headers['svc-signature'], request.rawBody, rotated.body.secret as string).ok).toBe(true);
      expect((await d.attempts(envelope.id)).at(-1)).toMatchObject({ attemptNumber: 10, statusCode: 200, errorCode: null });
    } finally {
      await d.close();
    }
  });

  it('the database refuses a failed attempt without a code, and a successful one with a code', async () => {
    const eventId = randomUUID();
    await admin.query(
      `INSERT INTO webhooks.events (id, integration_id, event_type, body, created_at) VALUES ($1, $2, 'order.paid', '{}', now())`,
      [eventId, randomUUID()],
    );
    const insert = (n: number, statusCode: number | null, errorCode: string | null, outcome: string) =>
      admin.query(
        `INSERT INTO webhooks.attempts (event_id, attempt_number, job_id, url, attempted_at, signed_at, status_code, error, error_code, latency_ms, outcome)
         VALUES ($1, $2, 'job', 'http://127.0.0.1/hooks', now(), 0, $3, $4, $5, 1, $6)`,
        [eventId, n, statusCode, statusCode === null ? 'timeout' : null, errorCode, outcome],
      );
    await expect(insert(1, null, null, 'failure')).rejects.toThrow(/attempts_error_code_check/);
    await expect(insert(1, 200, 'WEBHOOK_RECEIVER_HTTP_ERROR', 'success')).rejects.toThrow(/attempts_error_code_check/);
    await expect(insert(1, 500, 'not a code', 'failure')).rejects.toThrow(/attempts_error_code_check/);
    await insert(1, null, 'WEBHOOK_RECEIVER_TIMEOUT', 'failure');
    await insert(2, 200, null, 'success');
  });

  describe('DNS and SSRF (scripted DNS)', () => {
    const dns = new DnsStub();
    let d: Dispatcher;

    beforeAll(async () => {
      // One attempt per event within the test: the retries are far away.
      d = await startDispatcher(db, redis[1], { WEBHOOK_BACKOFF_BASE_MS: '600000' }, undefined, { resolver: dns.resolver });
    });
    afterAll(() => d?.close());

    const firstAttempt = async (url: string): Promise<{ integrationId: string; eventId: string; attempt: Attempt }> => {
      const integrationId = randomUUID();
      await d.setEndpoint(integrationId, url);
      const { id: eventId } = await d.enqueue(integrationId);
      const [attempt] = await waitFor(async () => {
        const list: Attempt[] = await d.attempts(eventId);
        return list.length > 0 ? list : undefined;
      }, 10_000);
      return { integrationId, eventId, attempt };
    };

    it('a host name that does not resolve: attempt recorded as WEBHOOK_DNS_FAILED, counted, the endpoint failing', async () => {
      // Unknown to the stub (ENOTFOUND); a registration accepts a name that does not resolve yet.
      const { integrationId, eventId, attempt } = await firstAttempt(`http://gone.partner.test:${receiver.port}/hooks`);
      expect(attempt).toMatchObject({
        attemptNumber: 1,
        statusCode: null,
        outcome: 'failure',
        error: 'dns: ENOTFOUND',
        errorCode: 'WEBHOOK_DNS_FAILED',
      });
      expect(await d.event(eventId)).toMatchObject({ status: 'pending', attemptCount: 1 });
      expect(await endpointOf(d, integrationId)).toMatchObject({ status: 'enabled', failingSince: expect.any(String) });
    });

    it('an address the SSRF policy refuses at send time: attempt recorded as WEBHOOK_ADDRESS_REFUSED, counted, the endpoint failing', async () => {
      // Loopback (allowed in tests) when registered, private when the attempt resolves it again.
      dns.set('rebound.partner.test', ['127.0.0.1'], ['10.1.2.3']);
      const { integrationId, eventId, attempt } = await firstAttempt(`http://rebound.partner.test:${receiver.port}/hooks`);
      expect(attempt).toMatchObject({
        attemptNumber: 1,
        statusCode: null,
        outcome: 'failure',
        error: 'refused: private address',
        errorCode: 'WEBHOOK_ADDRESS_REFUSED',
      });
      expect(await d.event(eventId)).toMatchObject({ status: 'pending', attemptCount: 1 });
      expect(await endpointOf(d, integrationId)).toMatchObject({ status: 'enabled', failingSince: expect.any(String) });
      expect(receivedFor(eventId)).toHaveLength(0);
    });

    it('codes the failures after the request too, and none on success', async () => {
      const failing = await new RecordingReceiver(() => ({ status: 503 })).start();
      try {
        expect((await firstAttempt(failing.url)).attempt).toMatchObject({ statusCode: 503, errorCode: 'WEBHOOK_RECEIVER_HTTP_ERROR' });
      } finally {
        await failing.stop();
      }
      expect((await firstAttempt(receiver.url)).attempt).toMatchObject({ statusCode: 200, outcome: 'success', errorCode: null });
    });
  });
});
