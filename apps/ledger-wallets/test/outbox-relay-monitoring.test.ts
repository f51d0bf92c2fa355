import { randomBytes, randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { LEDGER_EVENT_BATCH_JOB, type LedgerEventBatch, QUEUES } from '@mm/contracts';
import { MetricsService, bullOptions, bullPrefix } from '@mm/platform';
import { LedgerDb } from '../src/db/ledger-db.service';
import { OutboxRelay, batchJobId } from '../src/outbox/outbox-relay.service';
import { type Harness, fundedAccount, startLedger, transfer } from './ledger-harness';

const STATES = ['waiting', 'active', 'completed', 'delayed', 'failed', 'prioritized', 'waiting-children'] as const;

/**
 * The outbox relay publishes each batch to two queues, `ledger-events` (partners) and
 * `monitoring-events` (transaction monitoring), and marks the rows only once both took it.
 * The monitoring queue is made to fail for real: the relay talks to Redis as an ACL user allowed
 * only the keys of `ledger-events`, so every write to `monitoring-events` is refused with NOPERM
 * while the other queue works; granting the keys is the repair, seen by the same relay's next poll.
 */
describe('ledger outbox relay: the monitoring-events queue', () => {
  let h: Harness;
  let admin: Redis;
  let relay: OutboxRelay;
  let ledgerEvents: Queue;
  let monitoringEvents: Queue;
  const user = `mm-test-relay-${process.pid}-${randomUUID().slice(0, 8)}`;
  const password = randomBytes(16).toString('hex');

  beforeAll(async () => {
    h = await startLedger(); // its own relay never polls (LEDGER_OUTBOX_POLL_MS=0): this file's relay takes every row
    const config = h.app.config;
    admin = new Redis(config.REDIS_URL);
    const prefix = bullPrefix(config);
    await admin.call('ACL', 'SETUSER', user, 'reset', 'on', `>${password}`, '+@all', '&*', `~${prefix}:${QUEUES.ledgerEvents}:*`);
    const url = new URL(config.REDIS_URL);
    url.username = user;
    url.password = password;
    relay = new OutboxRelay(h.app.app.get(LedgerDb), { ...config, REDIS_URL: url.toString() } as never, new MetricsService());
    ledgerEvents = new Queue(QUEUES.ledgerEvents, bullOptions(config));
    monitoringEvents = new Queue(QUEUES.monitoringEvents, bullOptions(config));
  }, 30_000);

  afterAll(async () => {
    await relay?.onApplicationShutdown();
    await ledgerEvents?.close();
    await monitoringEvents?.close();
    await admin?.call('ACL', 'DELUSER', user);
    admin?.disconnect();
    await h?.close();
  });

  const jobCount = async (queue: Queue) => Object.values(await queue.getJobCounts(...STATES)).reduce((a, b) => a + b, 0);
  const pendingRows = async () =>
    (
      await h.admin.query<{ id: string; published_at: Date | null; attempts: number; last_error: string | null }>(
        `SELECT id, published_at, attempts, last_error FROM ledger.outbox ORDER BY created_at, id`,
      )
    ).rows;

  it('a refused monitoring add leaves the batch unpublished; the next poll after the repair publishes it to both, a re-publish adds nothing', async () => {
    const a = await fundedAccount(h, 1_000);
    const b = await fundedAccount(h, 0);
    for (const amount of [100, 200, 300]) expect((await transfer(h, a, b, amount)).status).toBe(200);
    const rows = await pendingRows();
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(rows.length).toBeLessThanOrEqual(h.app.config.LEDGER_OUTBOX_BATCH_SIZE); // one batch
    const ids = rows.map((r) => r.id);
    const jobId = batchJobId(ids);

    // monitoring-events refuses: nothing is marked, each row counts the attempt and keeps the error
    expect(await relay.tick()).toBe(0);
    const refused = await pendingRows();
    expect(refused.map((r) => [r.id, r.published_at, r.attempts])).toEqual(ids.map((id) => [id, null, 1]));
    for (const row of refused) expect(row.last_error).toMatch(/NOPERM|permission/i);
    expect(await monitoringEvents.getJob(jobId)).toBeUndefined();
    expect(await jobCount(monitoringEvents)).toBe(0);

    // still refused: the rows wait, one more attempt each
    expect(await relay.tick()).toBe(0);
    expect((await pendingRows()).map((r) => [r.published_at, r.attempts])).toEqual(ids.map(() => [null, 2]));

    // the repair: the next poll publishes the batch to both queues under one id and marks the rows
    await admin.call('ACL', 'SETUSER', user, `~${bullPrefix(h.app.config)}:${QUEUES.monitoringEvents}:*`);
    expect(await relay.tick()).toBe(ids.length);
    const published = await pendingRows();
    expect(published.map((r) => [r.id, r.attempts, r.last_error])).toEqual(ids.map((id) => [id, 3, null]));
    expect(published.every((r) => r.published_at !== null)).toBe(true);
    for (const queue of [ledgerEvents, monitoringEvents]) {
      const job = await queue.getJob(jobId);
      expect(job?.name).toBe(LEDGER_EVENT_BATCH_JOB);
      expect((job!.data as LedgerEventBatch).events.map((e) => e.eventId)).toEqual(ids);
      // ledger-events may have taken the batch on a refused poll already: the retries added nothing there
      expect(await jobCount(queue)).toBe(1);
    }
    const monitored = (await monitoringEvents.getJob(jobId))!.data as LedgerEventBatch;
    expect(monitored.events.filter((e) => e.type === 'transaction.completed').map((e) => e.amount)).toEqual(
      expect.arrayContaining([100, 200, 300]),
    );

    // the same batch published again (a crash between the adds and the mark): no new job on either queue
    await h.admin.query(`UPDATE ledger.outbox SET published_at = NULL WHERE id = ANY($1::uuid[])`, [ids]);
    expect(await relay.tick()).toBe(ids.length);
    for (const queue of [ledgerEvents, monitoringEvents]) {
      expect(await jobCount(queue)).toBe(1);
      expect((await queue.getJob(jobId))?.id).toBe(jobId);
    }
    expect((await pendingRows()).every((r) => r.published_at !== null)).toBe(true);
  }, 20_000);
});
