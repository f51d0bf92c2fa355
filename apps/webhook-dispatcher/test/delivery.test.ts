import { createHmac, randomUUID } from 'node:crypto';
import { WEBHOOK_JOBS, webhookJobOptions } from '@mm/contracts';
import { parseSignatureHeader, verify } from '@mm/webhook-signature';
import { type Envelope, type WebhookReceiver, createWebhookReceiver } from '../../../examples/webhook-receiver/receiver';
import { type TestDatabase, createTestDatabase, createTestRedis } from '../../../test/support/test-env';
import { type Dispatcher, startDispatcher, waitFor } from './support/harness';
import { RecordingReceiver, closedPort } from './support/recording-receiver';

const BASE_MS = 300;

describe('webhook delivery: signed, retried, logged', () => {
  const redis = createTestRedis();
  let db: TestDatabase;
  let dispatcher: Dispatcher;

  beforeAll(async () => {
    db = await createTestDatabase();
    dispatcher = await startDispatcher(db, redis, { WEBHOOK_BACKOFF_BASE_MS: String(BASE_MS), WEBHOOK_TIMEOUT_MS: '1000' });
  });
  afterAll(async () => {
    await dispatcher?.close();
    await db?.drop();
    await redis.flush();
  });

  const delivered = (eventId: string) =>
    waitFor(async () => (await dispatcher.event(eventId))?.status === 'delivered', 15_000, `${eventId} delivered`);

  it('delivers once to a healthy receiver: the example receiver verifies it and an independent HMAC matches the raw bytes', async () => {
    const integrationId = randomUUID();
    const handled: Envelope[] = [];
    const deliveries: { status: number; headers: Record<string, unknown>; rawBody: Buffer }[] = [];
    let secret = '';
    const receiver: WebhookReceiver = createWebhookReceiver({
      secrets: () => [secret],
      handlers: { 'order.paid': (e) => void handled.push(e) },
      onDelivery: (d) => deliveries.push(d),
    });
    const port = await receiver.listen();
    try {
      secret = await dispatcher.setEndpoint(integrationId, `http://127.0.0.1:${port}/webhooks`);
      expect(secret).toMatch(/^whsec_/);
      const envelope = await dispatcher.enqueue(integrationId);
      await delivered(envelope.id);
      await receiver.idle();

      expect(handled).toEqual([envelope]);
      expect(deliveries).toHaveLength(1);
      const { headers, rawBody, status } = deliveries[0];
      expect(status).toBe(200);
      expect(JSON.parse(rawBody.toString())).toEqual(envelope);
      expect(Object.keys(JSON.parse(rawBody.toString()))).toEqual(['event', 'id', 'createdAt', 'data']);
      expect(headers['content-type']).toBe('application/json');
      expect(headers['user-agent']).toMatch(/^Svc-Webhooks\/\d+(\.\d+)*$/);
      expect(headers['svc-event']).toBe('order.paid');
      expect(headers['svc-event-id']).toBe(envelope.id);
      expect(headers['content-length']).toBe(String(rawBody.length));

      // Independent check: recompute v1 = HMAC-SHA256(secret, "<t>.<rawBody>") with node:crypto.
      const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(headers['svc-signature']));
      expect(match).not.toBeNull();
      const [, t, v1] = match!;
      expect(createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex')).toBe(v1);
      expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(5);

      const attempts = await dispatcher.attempts(envelope.id);
      expect(attempts).toEqual([
        expect.objectContaining({ attemptNumber: 1, statusCode: 200, outcome: 'success', error: null, jobId: envelope.id }),
      ]);
      expect(attempts[0].responseExcerpt).toContain('received');
    } finally {
      await receiver.close();
    }
  });

  it('retries a receiver answering 500 three times with doubling backoff, then records one delivery', async () => {
    const integrationId = randomUUID();
    const receiver = await new RecordingReceiver((i) => ({ status: i < 3 ? 500 : 200 })).start();
    try {
      const secret = await dispatcher.setEndpoint(integrationId, receiver.url);
      const envelope = await dispatcher.enqueue(integrationId);
      await delivered(envelope.id);

      expect(receiver.received).toHaveLength(4);
      const gaps = receiver.received.slice(1).map((r, i) => r.at - receiver.received[i].at);
      // Waits of base, 2×base, 4×base: each gap is at least its delay, plus a bounded scheduling overhead.
      gaps.forEach((gap, i) => {
        expect(gap).toBeGreaterThanOrEqual(BASE_MS * 2 ** i - 5);
        expect(gap).toBeLessThan(BASE_MS * 2 ** i + 600);
      });
      expect(gaps[2]).toBeGreaterThan(gaps[1]);
      expect(gaps[1]).toBeGreaterThan(gaps[0]);

      // The body is byte-identical on every attempt, and every attempt carries a valid signature.
      for (const r of receiver.received) {
        expect(r.rawBody.equals(receiver.received[0].rawBody)).toBe(true);
        expect(verify(r.headers['svc-signature'], r.rawBody, secret).ok).toBe(true);
      }
      const attempts = await dispatcher.attempts(envelope.id);
      expect(attempts.map((a) => [a.attemptNumber, a.statusCode, a.outcome])).toEqual([
        [1, 500, 'failure'],
        [2, 500, 'failure'],
        [3, 500, 'failure'],
        [4, 200, 'success'],
      ]);
      const event = await dispatcher.event(envelope.id);
      expect(event).toMatchObject({ status: 'delivered', attemptCount: 4 });
      expect(event.deliveredAt).not.toBeNull();
    } finally {
      await receiver.stop();
    }
  });

  it('treats a receiver slower than the timeout as a failed attempt and retries it', async () => {
    const integrationId = randomUUID();
    // Timeout scaled to 1 s for the test (5 s in production); the receiver sleeps 1.6 s the first time.
    const receiver = await new RecordingReceiver((i) => (i === 0 ? { status: 200, delayMs: 1_600 } : { status: 200 })).start();
    try {
      await dispatcher.setEndpoint(integrationId, receiver.url);
      const envelope = await dispatcher.enqueue(integrationId);
      await delivered(envelope.id);
      const attempts = await dispatcher.attempts(envelope.id);
      expect(attempts.map((a) => [a.statusCode, a.error, a.outcome])).toEqual([
        [null, 'timeout', 'failure'],
        [200, null, 'success'],
      ]);
      expect(attempts[0].latencyMs).toBeGreaterThanOrEqual(990);
      expect(attempts[0].latencyMs).toBeLessThan(1_500);
    } finally {
      await receiver.stop();
    }
  });

  it('retries while the receiver is down (port closed) and delivers once it comes up', async () => {
    const integrationId = randomUUID();
    const port = await closedPort();
    const receiver = new RecordingReceiver();
    try {
      await dispatcher.setEndpoint(integrationId, `http://127.0.0.1:${port}/hooks`);
      const envelope = await dispatcher.enqueue(integrationId);
      await waitFor(async () => (await dispatcher.attempts(envelope.id)).length >= 2, 10_000, 'two refused attempts');
      await receiver.start(port);
      await delivered(envelope.id);
      const attempts = await dispatcher.attempts(envelope.id);
      expect(attempts.length).toBeGreaterThanOrEqual(3);
      expect(attempts.slice(0, -1).every((a) => a.statusCode === null && /^network: ECONNREFUSED/.test(a.error))).toBe(true);
      expect(attempts.at(-1)).toMatchObject({ statusCode: 200, outcome: 'success' });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.stop();
    }
  });

  it('signs at each attempt: an attempt made long after enqueueing carries a fresh t and passes the tolerance', async () => {
    const integrationId = randomUUID();
    const receiver = await new RecordingReceiver((i) => ({ status: i === 0 ? 503 : 200 })).start();
    try {
      const secret = await dispatcher.setEndpoint(integrationId, receiver.url);
      // Produced half an hour ago, enqueued now, first attempt 2.5 s later (a delayed job), then a retry.
      const envelope = {
        event: 'order.paid',
        id: randomUUID(),
        createdAt: new Date(Date.now() - 30 * 60_000).toISOString(),
        data: { orderId: randomUUID(), transactionId: 'TX-2', amount: 700, currencyCode: 'XOF', paidAt: new Date().toISOString() },
      };
      const enqueuedSec = Math.floor(Date.now() / 1000);
      await dispatcher.queue.add(WEBHOOK_JOBS.deliver, { integrationId, envelope }, { ...webhookJobOptions(envelope.id), delay: 2_500 });
      await delivered(envelope.id);

      expect(receiver.received).toHaveLength(2);
      const ts = receiver.received.map((r) => parseSignatureHeader(String(r.headers['svc-signature']))!.timestamp);
      for (const [i, r] of receiver.received.entries()) {
        // t is the second the attempt was signed: within a second of its arrival, far from enqueue and createdAt.
        expect(ts[i]).toBeGreaterThanOrEqual(enqueuedSec + 2);
        expect(Math.floor(r.at / 1000) - ts[i]).toBeLessThanOrEqual(1);
        expect(verify(r.headers['svc-signature'], r.rawBody, secret, { toleranceSec: 1, now: new Date(r.at) }).ok).toBe(true);
        expect(verify(r.headers['svc-signature'], r.rawBody, secret, { toleranceSec: 300, now: new Date(r.at) }).ok).toBe(true);
      }
      const logged = await dispatcher.attempts(envelope.id);
      expect(logged.map((a) => a.signedAt)).toEqual(ts);
    } finally {
      await receiver.stop();
    }
  });
});
