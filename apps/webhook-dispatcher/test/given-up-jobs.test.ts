import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { WEBHOOK_JOBS, webhookJobOptions } from '@mm/contracts';
import { type TestDatabase, createTestDatabase, createTestRedis } from '../../../test/support/test-env';
import { type Dispatcher, captureLogger, startDispatcher, waitFor } from './support/harness';
import { RecordingReceiver } from './support/recording-receiver';

const GIVEN_UP = 'webhook job given up: event not delivered';

describe('jobs BullMQ gives up on outside a recorded attempt: failed, logged, counted, resendable', () => {
  const redis = createTestRedis();
  const capture = captureLogger();
  let db: TestDatabase;
  let dispatcher: Dispatcher;
  let receiver: RecordingReceiver;
  let admin: Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    receiver = await new RecordingReceiver().start();
    dispatcher = await startDispatcher(db, redis, { WEBHOOK_BACKOFF_BASE_MS: '20' }, capture.logger);
    admin = new Client({ connectionString: db.adminUrl });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await dispatcher?.close();
    await receiver?.stop();
    await db?.drop();
    await redis.flush();
  });

  const failedCount = async () => {
    const metrics = await dispatcher.running.app.inject({ method: 'GET', url: '/metrics' });
    return Number(/^webhook_deliveries_total\{outcome="failed"\} (\d+)$/m.exec(metrics.body)?.[1] ?? 0);
  };

  it('an unexpected error on every attempt (the stored secret no longer decrypts) ends with the event failed, an ERROR line and the failed count; resend-undelivered then delivers it', async () => {
    const integrationId = randomUUID();
    await dispatcher.setEndpoint(integrationId, receiver.url);
    const { rows } = await admin.query(`SELECT secret_ciphertext FROM webhooks.endpoints WHERE integration_id = $1`, [integrationId]);
    const stored: Buffer = rows[0].secret_ciphertext;
    // As after a change of WEBHOOK_SECRET_ENCRYPTION_KEY: decrypting throws at every attempt.
    await admin.query(`UPDATE webhooks.endpoints SET secret_ciphertext = $2 WHERE integration_id = $1`, [
      integrationId,
      randomBytes(stored.length),
    ]);
    const failedBefore = await failedCount();
    const from = new Date(Date.now() - 1_000).toISOString();
    const envelope = await dispatcher.enqueue(integrationId);

    await waitFor(async () => (await dispatcher.event(envelope.id))?.status === 'failed', 15_000, 'event failed');
    const line = await waitFor(() => capture.lines.find((l) => l.msg === GIVEN_UP && l.eventId === envelope.id), 5_000, 'error line');
    expect(line).toMatchObject({ level: 50, jobId: envelope.id, job: 'deliver', markedFailed: true });
    expect(await dispatcher.queue.getJobState(envelope.id)).toBe('failed');
    expect((await dispatcher.queue.getJob(envelope.id))?.attemptsMade).toBe(8);
    // The seven retried errors were each logged as a warning naming the event.
    const retried = capture.lines.filter((l) => l.msg === 'webhook job errored; BullMQ retries it' && l.eventId === envelope.id);
    expect(retried).toHaveLength(7);
    expect((await dispatcher.event(envelope.id)).failedAt).not.toBeNull();
    expect(await failedCount()).toBe(failedBefore + 1);
    expect(receiver.received.filter((r) => r.headers['svc-event-id'] === envelope.id)).toHaveLength(0);

    // The key is put right; the operator's window resend selects the event.
    await admin.query(`UPDATE webhooks.endpoints SET secret_ciphertext = $2 WHERE integration_id = $1`, [integrationId, stored]);
    const resent = await dispatcher.api('POST', '/internal/webhooks/events/resend-undelivered', {
      from,
      to: new Date(Date.now() + 1_000).toISOString(),
      integrationId,
    });
    expect(resent).toEqual({ status: 202, body: { eventIds: [envelope.id], truncated: false } });
    await waitFor(async () => (await dispatcher.event(envelope.id))?.status === 'delivered', 10_000, 'delivered after resend');
    expect(receiver.received.filter((r) => r.headers['svc-event-id'] === envelope.id)).toHaveLength(1);
  });

  it('a job refused at once (its event does not exist) is logged as an ERROR with the event id and counted', async () => {
    const failedBefore = await failedCount();
    const eventId = randomUUID();
    await dispatcher.queue.add(WEBHOOK_JOBS.resend, { eventId }, webhookJobOptions(`${eventId}-resend-1`));
    const line = await waitFor(() => capture.lines.find((l) => l.msg === GIVEN_UP && l.eventId === eventId), 5_000, 'error line');
    expect(line).toMatchObject({ level: 50, job: 'resend', markedFailed: false, attemptsMade: 1 });
    expect(String(line.reason)).toMatch(/^WEBHOOK_EVENT_NOT_FOUND/);
    expect(await failedCount()).toBe(failedBefore + 1);
  });

  it('a last attempt that the receiver refuses is still recorded once: failed by the attempt, not counted twice', async () => {
    const integrationId = randomUUID();
    const failing = await new RecordingReceiver(() => ({ status: 500 })).start();
    try {
      await dispatcher.setEndpoint(integrationId, failing.url);
      const failedBefore = await failedCount();
      const envelope = await dispatcher.enqueue(integrationId);
      await waitFor(async () => (await dispatcher.queue.getJobState(envelope.id)) === 'failed', 15_000, 'job failed');
      const line = await waitFor(
        () => capture.lines.find((l) => l.msg === 'webhook delivery failed after all attempts' && l.eventId === envelope.id),
        5_000,
        'error line',
      );
      expect(line).toMatchObject({ level: 50, attemptNumber: 8 });
      expect(await dispatcher.event(envelope.id)).toMatchObject({ status: 'failed', attemptCount: 8 });
      expect(capture.lines.filter((l) => l.msg === GIVEN_UP && l.eventId === envelope.id)).toEqual([]);
      expect(await failedCount()).toBe(failedBefore + 1);
    } finally {
      await failing.stop();
    }
  });
});
