import { randomUUID } from 'node:crypto';
import { type TestDatabase, createTestDatabase, createTestRedis } from '../../../test/support/test-env';
import { type Dispatcher, captureLogger, sleep, startDispatcher, waitFor } from './support/harness';
import { RecordingReceiver, closedPort } from './support/recording-receiver';

describe('webhook deduplication store (docs/architecture.md "7. Delivery — `DeliveryWorker` → `DeliveryService` (dispatcher)")', () => {
  const redis = createTestRedis();
  let db: TestDatabase;
  let receiver: RecordingReceiver;

  beforeAll(async () => {
    db = await createTestDatabase();
    receiver = await new RecordingReceiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await db?.drop();
    await redis.flush();
  });

  describe('with the store up', () => {
    let dispatcher: Dispatcher;
    beforeAll(async () => {
      dispatcher = await startDispatcher(db, redis);
    });
    afterAll(() => dispatcher?.close());

    const countFor = (eventId: string) => receiver.received.filter((r) => r.headers['svc-event-id'] === eventId).length;

    it('dispatches an event enqueued twice within 24 h once, even after its first job is gone', async () => {
      const integrationId = randomUUID();
      await dispatcher.setEndpoint(integrationId, receiver.url);
      const envelope = await dispatcher.enqueue(integrationId);
      // A producer retrying its enqueue at once: same job id.
      await dispatcher.enqueue(integrationId, envelope);
      await waitFor(async () => (await dispatcher.event(envelope.id))?.status === 'delivered', 10_000, 'delivered');

      // Later, once the completed job has left Redis, the producer enqueues the same event again.
      await waitFor(async () => (await dispatcher.queue.getJobState(envelope.id)) === 'completed', 5_000, 'job completed');
      await dispatcher.queue.remove(envelope.id);
      await dispatcher.enqueue(integrationId, envelope);
      const job = await waitFor(
        // State first, then the job: a job read before it completes keeps a null returnvalue.
        async () => ((await dispatcher.queue.getJobState(envelope.id)) === 'completed' ? dispatcher.queue.getJob(envelope.id) : undefined),
        5_000,
        'second job completed',
      );
      expect(job.returnvalue).toBe('duplicate');

      // Same through the internal enqueue route.
      const again = await dispatcher.api('POST', '/internal/webhooks/events', { integrationId, ...envelope });
      expect(again.status).toBe(202);
      await sleep(300);

      expect(countFor(envelope.id)).toBe(1);
      expect(await dispatcher.attempts(envelope.id)).toHaveLength(1);
      const metrics = await dispatcher.running.app.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).toMatch(/webhook_deliveries_total\{outcome="duplicate"\} 1\b/);
      expect(metrics.body).toMatch(/webhook_deliveries_total\{outcome="delivered"\} 1\b/);
    });

    it('lets an explicit resend through (it is deliberate, not a duplicate)', async () => {
      const integrationId = randomUUID();
      await dispatcher.setEndpoint(integrationId, receiver.url);
      const envelope = await dispatcher.enqueue(integrationId);
      await waitFor(async () => (await dispatcher.event(envelope.id))?.status === 'delivered', 10_000, 'delivered');
      const res = await dispatcher.api('POST', `/internal/webhooks/events/${envelope.id}/resend`);
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ eventId: envelope.id, jobId: `${envelope.id}-resend-1`, repeated: false });
      await waitFor(() => countFor(envelope.id) === 2, 10_000, 'resent delivery');
      const [first, second] = receiver.received.filter((r) => r.headers['svc-event-id'] === envelope.id);
      expect(second.rawBody.equals(first.rawBody)).toBe(true);
      await waitFor(async () => (await dispatcher.attempts(envelope.id)).length === 2, 5_000, 'second attempt logged');
      expect((await dispatcher.attempts(envelope.id)).map((a: { jobId: string }) => a.jobId)).toEqual([
        envelope.id,
        `${envelope.id}-resend-1`,
      ]);
    });
  });

  describe('with the store unreachable', () => {
    let dispatcher: Dispatcher;
    const capture = captureLogger();
    const ownRedis = createTestRedis();

    beforeAll(async () => {
      const port = await closedPort();
      dispatcher = await startDispatcher(db, ownRedis, { WEBHOOK_DEDUP_REDIS_URL: `redis://127.0.0.1:${port}` }, capture.logger);
    });
    afterAll(async () => {
      await dispatcher?.close();
      await ownRedis.flush();
    });

    it('still delivers, logs a warning and counts the skipped deduplication', async () => {
      const integrationId = randomUUID();
      await dispatcher.setEndpoint(integrationId, receiver.url);
      const envelope = await dispatcher.enqueue(integrationId);
      await waitFor(async () => (await dispatcher.event(envelope.id))?.status === 'delivered', 10_000, 'delivered');
      expect(receiver.received.filter((r) => r.headers['svc-event-id'] === envelope.id)).toHaveLength(1);

      const warning = capture.lines.find(
        (l) => l.msg === 'deduplication store unavailable: dispatching without deduplication' && l.eventId === envelope.id,
      );
      expect(warning).toMatchObject({ level: 40, context: 'DedupStore' });
      const metrics = await dispatcher.running.app.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).toMatch(/^webhook_dedup_unavailable_total 1$/m);
    });
  });
});
