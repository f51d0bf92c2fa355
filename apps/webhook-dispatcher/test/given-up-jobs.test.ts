import { randomUUID } from 'node:crypto';
import { WEBHOOK_JOBS, webhookJobOptions } from '@mm/contracts';
import { DeliveryService } from '../src/delivery/delivery.service';
import { captureLogger, waitFor, useDispatcher } from './support/harness';
import { RecordingReceiver } from './support/recording-receiver';

const GIVEN_UP = 'webhook job given up: event not delivered';

describe('jobs BullMQ gives up on outside a recorded attempt: failed, logged, counted, resendable', () => {
  const capture = captureLogger();
  const t = useDispatcher({ env: { WEBHOOK_BACKOFF_BASE_MS: '20' }, logger: capture.logger, admin: true });

  const failedCount = async () => {
    const metrics = await t.dispatcher.running.app.inject({ method: 'GET', url: '/metrics' });
    return Number(/^webhook_deliveries_total\{outcome="failed"\} (\d+)$/m.exec(metrics.body)?.[1] ?? 0);
  };

  it('an unexpected error on every attempt (the attempt log refuses its write) ends with the event failed, an ERROR line and the failed count; resend-undelivered then delivers it', async () => {
    const integrationId = randomUUID();
    await t.dispatcher.setEndpoint(integrationId, t.receiver.url);
    const eventId = randomUUID();
    // A real database error after each send, raised by a trigger (an undecryptable secret no longer
    // serves here: it is a recorded failed attempt, see pre-request-failures.test.ts).
    await t.admin.query(`CREATE OR REPLACE FUNCTION webhooks.test_refuse_attempt() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.event_id = '${eventId}' THEN RAISE EXCEPTION 'test: database refuses this attempt'; END IF;
        RETURN NEW;
      END $$`);
    await t.admin.query(
      `CREATE TRIGGER test_refuse_attempt BEFORE INSERT ON webhooks.attempts FOR EACH ROW EXECUTE FUNCTION webhooks.test_refuse_attempt()`,
    );
    const failedBefore = await failedCount();
    const from = new Date(Date.now() - 1_000).toISOString();
    const envelope = await t.dispatcher.enqueue(integrationId, { id: eventId });
    try {
      await waitFor(async () => (await t.dispatcher.event(envelope.id))?.status === 'failed', 15_000, 'event failed');
    } finally {
      await t.admin.query(`DROP TRIGGER IF EXISTS test_refuse_attempt ON webhooks.attempts`);
      await t.admin.query(`DROP FUNCTION IF EXISTS webhooks.test_refuse_attempt()`);
    }
    const line = await waitFor(() => capture.lines.find((l) => l.msg === GIVEN_UP && l.eventId === envelope.id), 5_000, 'error line');
    expect(line).toMatchObject({ level: 50, jobId: envelope.id, job: 'deliver', markedFailed: true });
    expect(await t.dispatcher.queue.getJobState(envelope.id)).toBe('failed');
    expect((await t.dispatcher.queue.getJob(envelope.id))?.attemptsMade).toBe(8);
    // The seven retried errors were each logged as a warning naming the event.
    const retried = capture.lines.filter((l) => l.msg === 'webhook job errored; BullMQ retries it' && l.eventId === envelope.id);
    expect(retried).toHaveLength(7);
    expect((await t.dispatcher.event(envelope.id)).failedAt).not.toBeNull();
    expect(await failedCount()).toBe(failedBefore + 1);
    // Each attempt was sent before its record failed (at least once; the receiver deduplicates by id).
    const received = () => t.receiver.received.filter((r) => r.headers['svc-event-id'] === envelope.id).length;
    expect(received()).toBe(8);

    // The database takes writes again; the operator's window resend selects the event.
    const resent = await t.dispatcher.api('POST', '/internal/webhooks/events/resend-undelivered', {
      from,
      to: new Date(Date.now() + 1_000).toISOString(),
      integrationId,
    });
    expect(resent).toEqual({ status: 202, body: { eventIds: [envelope.id], truncated: false } });
    await waitFor(async () => (await t.dispatcher.event(envelope.id))?.status === 'delivered', 10_000, 'delivered after resend');
    expect(received()).toBe(9);
  });

  it('a job refused at once (its event does not exist) is logged as an ERROR with the event id and counted', async () => {
    const failedBefore = await failedCount();
    const eventId = randomUUID();
    await t.dispatcher.queue.add(WEBHOOK_JOBS.resend, { eventId }, webhookJobOptions(`${eventId}-resend-1`));
    const line = await waitFor(() => capture.lines.find((l) => l.msg === GIVEN_UP && l.eventId === eventId), 5_000, 'error line');
    expect(line).toMatchObject({ level: 50, job: 'resend', markedFailed: false, attemptsMade: 1 });
    expect(String(line.reason)).toMatch(/^WEBHOOK_EVENT_NOT_FOUND/);
    expect(await failedCount()).toBe(failedBefore + 1);
  });

  it('a last attempt that the receiver refuses is still recorded once: failed by the attempt, not counted twice', async () => {
    const integrationId = randomUUID();
    const failing = await new RecordingReceiver(() => ({ status: 500 })).start();
    try {
      await t.dispatcher.setEndpoint(integrationId, failing.url);
      const failedBefore = await failedCount();
      const envelope = await t.dispatcher.enqueue(integrationId);
      await waitFor(async () => (await t.dispatcher.queue.getJobState(envelope.id)) === 'failed', 15_000, 'job failed');
      const line = await waitFor(
        () => capture.lines.find((l) => l.msg === 'webhook delivery failed after all attempts' && l.eventId === envelope.id),
        5_000,
        'error line',
      );
      expect(line).toMatchObject({ level: 50, attemptNumber: 8 });
      expect(await t.dispatcher.event(envelope.id)).toMatchObject({ status: 'failed', attemptCount: 8 });
      expect(capture.lines.filter((l) => l.msg === GIVEN_UP && l.eventId === envelope.id)).toEqual([]);
      expect(await failedCount()).toBe(failedBefore + 1);
    } finally {
      await failing.stop();
    }
  });

  /** A real database error on writes to one event, raised by a trigger (the role cannot tell it from an outage). */
  const failWritesTo = async (eventId: string, when: 'pending_insert' | 'any_update') => {
    const condition = when === 'pending_insert' ? `TG_OP = 'INSERT' AND NEW.status = 'pending'` : `TG_OP = 'UPDATE'`;
    await t.admin.query(`CREATE OR REPLACE FUNCTION webhooks.test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.id = '${eventId}' AND ${condition} THEN RAISE EXCEPTION 'test: database refuses this write'; END IF;
        RETURN NEW;
      END $$`);
    await t.admin.query(
      `CREATE TRIGGER test_refuse BEFORE INSERT OR UPDATE ON webhooks.events FOR EACH ROW EXECUTE FUNCTION webhooks.test_refuse()`,
    );
  };
  const allowWrites = async () => {
    await t.admin.query(`DROP TRIGGER IF EXISTS test_refuse ON webhooks.events`);
    await t.admin.query(`DROP FUNCTION IF EXISTS webhooks.test_refuse()`);
  };

  it('a give-up of an old run leaves the event to its newer, live run; the give-up of the latest run marks it failed, counted once', async () => {
    const integrationId = randomUUID();
    await t.dispatcher.setEndpoint(integrationId, t.receiver.url);
    const envelope = await t.dispatcher.enqueue(integrationId);
    await waitFor(async () => (await t.dispatcher.event(envelope.id))?.status === 'delivered', 10_000, 'delivered');
    // As after two resends: run 2 is the live one.
    await t.admin.query(`UPDATE webhooks.events SET status = 'pending', resend_count = 2 WHERE id = $1`, [envelope.id]);
    const delivery = t.dispatcher.running.app.get(DeliveryService);
    const failedBefore = await failedCount();
    const givenUp = (run: number) => ({
      jobId: `${envelope.id}-resend-${run}`,
      name: WEBHOOK_JOBS.resend,
      data: { eventId: envelope.id },
      attemptsMade: 1,
      reason: 'test',
    });

    expect(await delivery.giveUp(givenUp(1))).toBe(false);
    expect(await t.dispatcher.event(envelope.id)).toMatchObject({ status: 'pending', resendCount: 2 });
    expect(await failedCount()).toBe(failedBefore);
    expect(capture.lines.filter((l) => l.msg === GIVEN_UP && l.eventId === envelope.id)).toEqual([]);

    expect(await delivery.giveUp(givenUp(2))).toBe(true);
    expect(await t.dispatcher.event(envelope.id)).toMatchObject({ status: 'failed' });
    // The same give-up seen again (by the pending sweep after the worker): not counted twice.
    expect(await delivery.giveUp(givenUp(2))).toBe(false);
    expect(await failedCount()).toBe(failedBefore + 1);
    expect(capture.lines.filter((l) => l.msg === GIVEN_UP && l.eventId === envelope.id)).toHaveLength(1);
  });

  it('a give-up whose event cannot be marked (database error) is not counted; the later marking counts it once', async () => {
    const integrationId = randomUUID();
    await t.dispatcher.setEndpoint(integrationId, t.receiver.url);
    const envelope = await t.dispatcher.enqueue(integrationId);
    await waitFor(async () => (await t.dispatcher.event(envelope.id))?.status === 'delivered', 10_000, 'delivered');
    await t.admin.query(`UPDATE webhooks.events SET status = 'pending', resend_count = 1 WHERE id = $1`, [envelope.id]);
    const delivery = t.dispatcher.running.app.get(DeliveryService);
    const job = {
      jobId: `${envelope.id}-resend-1`,
      name: WEBHOOK_JOBS.resend,
      data: { eventId: envelope.id },
      attemptsMade: 1,
      reason: 'test',
    };
    const failedBefore = await failedCount();

    await failWritesTo(envelope.id, 'any_update');
    try {
      expect(await delivery.giveUp(job)).toBe(false);
    } finally {
      await allowWrites();
    }
    expect(await t.dispatcher.event(envelope.id)).toMatchObject({ status: 'pending' });
    expect(await failedCount()).toBe(failedBefore);
    expect(capture.lines.find((l) => l.eventId === envelope.id && /could not be marked failed/.test(String(l.msg)))).toMatchObject({
      level: 50,
    });

    expect(await delivery.giveUp(job)).toBe(true);
    expect(await t.dispatcher.event(envelope.id)).toMatchObject({ status: 'failed' });
    expect(await failedCount()).toBe(failedBefore + 1);
  });

  it('an event whose ingest fails on every attempt is recorded failed by the give-up, from the job, and resend-undelivered then delivers it', async () => {
    const integrationId = randomUUID();
    await t.dispatcher.setEndpoint(integrationId, t.receiver.url);
    const eventId = randomUUID();
    const failedBefore = await failedCount();
    const from = new Date(Date.now() - 1_000).toISOString();
    await failWritesTo(eventId, 'pending_insert');
    try {
      await t.dispatcher.enqueue(integrationId, { id: eventId });
      await waitFor(async () => (await t.dispatcher.queue.getJobState(eventId)) === 'failed', 15_000, 'job failed');
      const line = await waitFor(() => capture.lines.find((l) => l.msg === GIVEN_UP && l.eventId === eventId), 5_000, 'error line');
      expect(line).toMatchObject({ level: 50, markedFailed: true, recordedNow: true });
    } finally {
      await allowWrites();
    }
    expect(await t.dispatcher.event(eventId)).toMatchObject({ status: 'failed', attemptCount: 0, integrationId });
    expect(await failedCount()).toBe(failedBefore + 1);

    const resent = await t.dispatcher.api('POST', '/internal/webhooks/events/resend-undelivered', {
      from,
      to: new Date(Date.now() + 1_000).toISOString(),
      integrationId,
    });
    expect(resent).toEqual({ status: 202, body: { eventIds: [eventId], truncated: false } });
    await waitFor(async () => (await t.dispatcher.event(eventId))?.status === 'delivered', 10_000, 'delivered after resend');
    expect(t.receiver.received.filter((r) => r.headers['svc-event-id'] === eventId)).toHaveLength(1);
  });
});
