import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { WEBHOOK_JOBS, webhookJobOptions } from '@mm/contracts';
import { DeliveryService } from '../src/delivery/delivery.service';
import { PendingSweep } from '../src/delivery/pending-sweep';
import { WebhookQueue } from '../src/delivery/webhook-queue';
import { WebhookEventsRepository } from '../src/events/webhook-events.repository';
import { type TestDatabase, createTestDatabase, createTestRedis } from '../../../test/support/test-env';
import { type Dispatcher, captureLogger, sleep, startDispatcher, waitFor } from './support/harness';
import { RecordingReceiver } from './support/recording-receiver';

const AGE_MS = 300;

describe('pending sweep: events recorded by the dispatcher whose job Redis lost', () => {
  const redis = createTestRedis();
  const capture = captureLogger();
  let db: TestDatabase;
  let dispatcher: Dispatcher;
  let receiver: RecordingReceiver;
  let healthy = false;

  beforeAll(async () => {
    db = await createTestDatabase();
    receiver = await new RecordingReceiver(() => ({ status: healthy ? 200 : 500 })).start();
    // A failed first attempt waits a minute for its retry: long enough to lose the job meanwhile.
    dispatcher = await startDispatcher(
      db,
      redis,
      // The age must stay above the enqueue deadline (config rule).
      { WEBHOOK_BACKOFF_BASE_MS: '60000', WEBHOOK_PENDING_SWEEP_AGE_MS: String(AGE_MS), WEBHOOK_ENQUEUE_TIMEOUT_MS: '200' },
      capture.logger,
    );
  });
  afterAll(async () => {
    await dispatcher?.close();
    await receiver?.stop();
    await db?.drop();
    await redis.flush();
  });

  const sweepOf = (running: Dispatcher['running']) => running.app.get(PendingSweep);
  /** A second dispatcher's sweep: same database and Redis, its own instance. */
  const otherSweep = (running: Dispatcher['running']) =>
    new PendingSweep(
      running.config,
      running.app.get(WebhookEventsRepository),
      running.app.get(WebhookQueue),
      running.app.get(DeliveryService),
    );
  const countFor = (eventId: string) => receiver.received.filter((r) => r.headers['svc-event-id'] === eventId).length;

  it('queues again, once even with two sweeps racing, an event whose job is gone; leaves alone one whose job waits', async () => {
    const integrationId = randomUUID();
    await dispatcher.setEndpoint(integrationId, receiver.url);
    const lost = await dispatcher.enqueue(integrationId);
    const waiting = await dispatcher.enqueue(integrationId);
    for (const e of [lost, waiting]) {
      await waitFor(async () => (await dispatcher.queue.getJobState(e.id)) === 'delayed', 10_000, 'first attempt failed, retry delayed');
    }
    expect(await dispatcher.event(lost.id)).toMatchObject({ status: 'pending', attemptCount: 1 });

    // Redis loses the job (restarted without its last writes): nothing would ever run the event again.
    await dispatcher.queue.remove(lost.id);
    expect(await dispatcher.queue.getJobState(lost.id)).toBe('unknown');
    healthy = true;
    await sleep(AGE_MS + 100);

    const [a, b] = await Promise.all([sweepOf(dispatcher.running).sweep(), otherSweep(dispatcher.running).sweep()]);
    expect([...a.requeued, ...b.requeued]).toEqual([lost.id]);
    expect([...a.failed, ...b.failed]).toEqual([]);

    await waitFor(async () => (await dispatcher.event(lost.id))?.status === 'delivered', 10_000, 'lost event delivered');
    expect(countFor(lost.id)).toBe(2);
    expect((await dispatcher.attempts(lost.id)).map((x: { jobId: string }) => x.jobId)).toEqual([lost.id, `${lost.id}-resend-1`]);
    expect(capture.lines.find((l) => l.msg === 'webhook event pending without a job; queued again' && l.eventId === lost.id)).toMatchObject(
      {
        level: 40,
        lostJobId: lost.id,
        jobId: `${lost.id}-resend-1`,
      },
    );

    // The event whose retry is still scheduled is untouched, and a later sweep finds nothing to do.
    expect(await dispatcher.queue.getJobState(waiting.id)).toBe('delayed');
    expect(await dispatcher.event(waiting.id)).toMatchObject({ status: 'pending', resendCount: 0 });
    expect(countFor(waiting.id)).toBe(1);
    expect(await sweepOf(dispatcher.running).sweep()).toEqual({ requeued: [], failed: [] });
  });

  it('marks failed an event left pending by a job BullMQ failed without the worker recording it', async () => {
    const admin = new Client({ connectionString: db.adminUrl });
    await admin.connect();
    try {
      const eventId = randomUUID();
      const integrationId = randomUUID();
      const body = JSON.stringify({ event: 'order.paid', id: eventId, createdAt: new Date().toISOString(), data: {} });
      // Recorded and pending, as a job that stalled too often leaves it (BullMQ fails such a job by itself).
      await admin.query(
        `INSERT INTO webhooks.events (id, integration_id, event_type, body, created_at, updated_at)
         VALUES ($1, $2, 'order.paid', $3, now(), now() - interval '1 minute')`,
        [eventId, integrationId, body],
      );
      await dispatcher.queue.add(WEBHOOK_JOBS.deliver, { integrationId, envelope: { id: 'not-an-event' } }, webhookJobOptions(eventId));
      await waitFor(async () => (await dispatcher.queue.getJobState(eventId)) === 'failed', 10_000, 'job failed');
      expect((await dispatcher.event(eventId)).status).toBe('pending');

      const result = await sweepOf(dispatcher.running).sweep();
      expect(result).toEqual({ requeued: [], failed: [eventId] });
      expect(await dispatcher.event(eventId)).toMatchObject({ status: 'failed', failedAt: expect.any(String) });
      const line = capture.lines.find((l) => l.msg === 'webhook job given up: event not delivered' && l.eventId === eventId);
      expect(line).toMatchObject({
        level: 50,
        markedFailed: true,
      });
      // The sweep reports what it knows: the job and run, not an attempt count it never saw.
      expect(line).toMatchObject({ jobId: eventId, job: WEBHOOK_JOBS.deliver, reason: 'its job was found failed by the pending sweep' });
      expect(line).not.toHaveProperty('attemptsMade');
      // A second dispatcher sweeping afterwards reports nothing more.
      expect(await otherSweep(dispatcher.running).sweep()).toEqual({ requeued: [], failed: [] });
    } finally {
      await admin.end();
    }
  });
  it('finds its candidates through the partial index on pending events in (updated_at, id) order', async () => {
    const admin = new Client({ connectionString: db.adminUrl });
    await admin.connect();
    try {
      const { rows } = await admin.query(
        `SELECT indexdef FROM pg_indexes WHERE schemaname = 'webhooks' AND indexname = 'events_pending_updated_idx'`,
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].indexdef).toMatch(/\(updated_at, id\) WHERE \(status = 'pending'::text\)/);
      // With sequential scans ruled out, the sweep's page query must have an index that fits it.
      await admin.query('BEGIN');
      await admin.query('SET LOCAL enable_seqscan = off');
      const plan = await admin.query(
        `EXPLAIN SELECT id, resend_count, updated_at::text AS at FROM webhooks.events
          WHERE status = 'pending' AND updated_at < now() - 1000 * interval '1 millisecond'
          ORDER BY updated_at, id LIMIT 200`,
      );
      await admin.query('ROLLBACK');
      expect(plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n')).toMatch(/events_pending_updated_idx/);
    } finally {
      await admin.end();
    }
  });
});
