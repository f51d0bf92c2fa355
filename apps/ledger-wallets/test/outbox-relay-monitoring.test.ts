import { randomBytes, randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { type Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { LEDGER_EVENT_BATCH_JOB, type LedgerEventBatch, QUEUES } from '@mm/contracts';
import { MetricsService, bullOptions, bullPrefix } from '@mm/platform';
import { LedgerDb } from '../src/db/ledger-db.service';
import { OutboxRelay, batchJobId } from '../src/outbox/outbox-relay.service';
import { type Harness, fundedAccount, startLedger, transfer } from './ledger-harness';

const STATES = ['waiting', 'active', 'completed', 'delayed', 'failed', 'prioritized', 'waiting-children'] as const;

interface Row {
  id: string;
  published_at: Date | null;
  monitoring_published_at: Date | null;
  attempts: number;
  last_error: string | null;
}

/**
 * The outbox relay feeds two queues through two cursors over `ledger.outbox`: `published_at` for
 * `ledger-events` (partners) and `monitoring_published_at` for `monitoring-events` (transaction
 * monitoring), each its own loop. The monitoring queue is made to fail for real: the relay talks to
 * Redis as an ACL user allowed only the keys of `ledger-events`, so every call on `monitoring-events`
 * is refused with NOPERM while the other queue works; granting the keys is the repair. The backlog
 * cap is checked against jobs really waiting in Redis, drained by a real BullMQ worker.
 */
describe('ledger outbox relay: the monitoring-events cursor', () => {
  let h: Harness;
  let admin: Redis;
  let relay: OutboxRelay;
  let metrics: MetricsService;
  let ledgerEvents: Queue;
  let monitoringEvents: Queue;
  const user = `mm-test-relay-${process.pid}-${randomUUID().slice(0, 8)}`;
  const password = randomBytes(16).toString('hex');

  beforeAll(async () => {
    h = await startLedger(); // its own relay never polls (LEDGER_OUTBOX_POLL_MS=0): this file's relays take every row
    const config = h.app.config;
    admin = new Redis(config.REDIS_URL);
    const prefix = bullPrefix(config);
    await admin.call('ACL', 'SETUSER', user, 'reset', 'on', `>${password}`, '+@all', '&*', `~${prefix}:${QUEUES.ledgerEvents}:*`);
    const url = new URL(config.REDIS_URL);
    url.username = user;
    url.password = password;
    metrics = new MetricsService();
    relay = new OutboxRelay(h.app.app.get(LedgerDb), { ...config, REDIS_URL: url.toString() } as never, metrics);
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
  const outbox = async (ids?: string[]) =>
    (
      await h.admin.query<Row>(
        `SELECT id, published_at, monitoring_published_at, attempts, last_error FROM ledger.outbox
          WHERE $1::uuid[] IS NULL OR id = ANY($1::uuid[]) ORDER BY created_at, id`,
        [ids ?? null],
      )
    ).rows;
  const metric = async (m: MetricsService, name: string) => (await m.registry.getSingleMetric(name)!.get()).values[0]?.value;
  const eventIds = (job: Job | undefined) => (job!.data as LedgerEventBatch).events.map((e) => e.eventId);

  it('a refused monitoring add holds back neither partners nor later batches; monitoring catches up after the repair, a re-add adds nothing', async () => {
    const a = await fundedAccount(h, 1_000);
    const b = await fundedAccount(h, 0);
    for (const amount of [100, 200, 300]) expect((await transfer(h, a, b, amount)).status).toBe(200);
    const first = (await outbox()).map((r) => r.id);
    expect(first.length).toBeGreaterThanOrEqual(3);
    expect(first.length).toBeLessThanOrEqual(h.app.config.LEDGER_OUTBOX_BATCH_SIZE); // one batch
    // written an hour ago as far as the lag gauge can tell (created_at is the transaction's time)
    await h.admin.query(`UPDATE ledger.outbox SET created_at = created_at - interval '1 hour'`);

    // monitoring-events refuses: its cursor stays put, nothing reaches the queue, the lag is reported
    expect(await relay.tickMonitoring()).toBe(0);
    expect((await outbox()).map((r) => [r.id, r.published_at, r.monitoring_published_at])).toEqual(first.map((id) => [id, null, null]));
    expect(await jobCount(monitoringEvents)).toBe(0);
    expect(await metric(metrics, 'ledger_outbox_monitoring_publish_failures_total')).toBe(1);
    expect(await metric(metrics, 'ledger_outbox_monitoring_lag_seconds')).toBeGreaterThanOrEqual(3_600);

    // partners are not held: ledger-events takes the batch and the rows are marked for it alone
    expect(await relay.tick()).toBe(first.length);
    const forPartners = await outbox();
    expect(forPartners.map((r) => [r.id, r.attempts, r.last_error, r.monitoring_published_at])).toEqual(
      first.map((id) => [id, 1, null, null]),
    );
    expect(forPartners.every((r) => r.published_at !== null)).toBe(true);
    expect(eventIds(await ledgerEvents.getJob(batchJobId(first)))).toEqual(first);

    // a later payment while monitoring is still refused: published to partners as its own batch
    expect((await transfer(h, a, b, 50)).status).toBe(200);
    expect(await relay.tickMonitoring()).toBe(0);
    const all = (await outbox()).map((r) => r.id);
    const second = all.filter((id) => !first.includes(id));
    expect(second).toHaveLength(1);
    expect(await relay.tick()).toBe(1);
    expect(eventIds(await ledgerEvents.getJob(batchJobId(second)))).toEqual(second);
    expect(await jobCount(ledgerEvents)).toBe(2);
    expect((await outbox()).every((r) => r.published_at !== null && r.monitoring_published_at === null)).toBe(true);

    // the repair: the next monitoring poll hands every waiting row over, oldest first, in one batch
    await admin.call('ACL', 'SETUSER', user, `~${bullPrefix(h.app.config)}:${QUEUES.monitoringEvents}:*`);
    expect(await relay.tickMonitoring()).toBe(all.length);
    expect((await outbox()).every((r) => r.monitoring_published_at !== null)).toBe(true);
    const job = await monitoringEvents.getJob(batchJobId(all));
    expect(job?.name).toBe(LEDGER_EVENT_BATCH_JOB);
    expect(eventIds(job)).toEqual(all);
    expect((job!.data as LedgerEventBatch).events.map((e) => e.amount)).toEqual(expect.arrayContaining([100, 200, 300, 50]));
    expect(await jobCount(monitoringEvents)).toBe(1);
    expect(await metric(metrics, 'ledger_outbox_monitoring_lag_seconds')).toBe(0);
    expect(await metric(metrics, 'ledger_outbox_monitoring_published_total')).toBe(all.length);

    // the same rows handed over again (a crash between the add and the mark): no new job
    await h.admin.query(`UPDATE ledger.outbox SET monitoring_published_at = NULL`);
    expect(await relay.tickMonitoring()).toBe(all.length);
    expect(await jobCount(monitoringEvents)).toBe(1);
    // and the partners' side was left alone all along
    expect(await relay.tick()).toBe(0);
    expect(await jobCount(ledgerEvents)).toBe(2);
  }, 20_000);

  it('the backlog cap stops adds while the worker is behind (rows wait, a warning once), and the next poll below it resumes without duplicates', async () => {
    await monitoringEvents.drain(true); // the first test's job: no worker took it
    const capped = new MetricsService();
    const small = new OutboxRelay(
      h.app.app.get(LedgerDb),
      { ...h.app.config, LEDGER_OUTBOX_BATCH_SIZE: 2, LEDGER_MONITORING_BACKLOG_MAX_JOBS: 2 } as never,
      capped,
    );
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const log = jest.spyOn(Logger.prototype, 'log');
    let worker: Worker | undefined;
    try {
      const a = await fundedAccount(h, 1_000);
      const b = await fundedAccount(h, 0);
      const before = new Set((await outbox()).map((r) => r.id));
      for (const amount of [11, 12, 13, 14, 15]) expect((await transfer(h, a, b, amount)).status).toBe(200);
      const fresh = (await outbox()).filter((r) => !before.has(r.id)).map((r) => r.id);
      expect(fresh).toHaveLength(5);
      await h.admin.query(`UPDATE ledger.outbox SET monitoring_published_at = now() WHERE NOT (id = ANY($1::uuid[]))`, [fresh]);

      // room for two jobs of two rows: the fifth row waits in the outbox
      expect(await small.tickMonitoring()).toBe(4);
      expect((await outbox(fresh)).map((r) => r.monitoring_published_at !== null)).toEqual([true, true, true, true, false]);
      expect(await monitoringEvents.getJobCounts('waiting')).toEqual({ waiting: 2 });
      expect(await metric(capped, 'ledger_outbox_monitoring_held')).toBe(1);
      const capWarnings = () =>
        warn.mock.calls.filter(([line]) => (line as { alert?: string })?.alert === 'ledger.monitoring_backlog_capped');
      expect(capWarnings()).toEqual([
        [expect.objectContaining({ backlogJobs: 0, maxJobs: 2, msg: expect.stringContaining('backlog cap') })],
      ]);

      // still at the cap: nothing added, the warning is not repeated, partners' loop is not concerned
      expect(await small.tickMonitoring()).toBe(0);
      expect(await monitoringEvents.getJobCounts('waiting')).toEqual({ waiting: 2 });
      expect(await metric(capped, 'ledger_outbox_monitoring_backlog_jobs')).toBe(2);
      expect(capWarnings()).toHaveLength(1);
      expect(await small.tick()).toBeGreaterThanOrEqual(5);
      expect((await outbox(fresh)).every((r) => r.published_at !== null)).toBe(true);

      // the monitoring worker catches up: the next poll hands over the fifth row and the hold ends
      const seen: string[] = [];
      let completed = 0;
      const waiting: Array<{ n: number; resolve: () => void }> = [];
      const completions = (n: number) => new Promise<void>((resolve) => (completed >= n ? resolve() : waiting.push({ n, resolve })));
      worker = new Worker(
        QUEUES.monitoringEvents,
        async (job: Job) => {
          seen.push(...eventIds(job));
        },
        bullOptions(h.app.config),
      );
      worker.on('completed', () => {
        completed++;
        for (const w of waiting) if (completed >= w.n) w.resolve();
      });
      await completions(2);
      expect(await small.tickMonitoring()).toBe(1);
      expect((await outbox(fresh)).every((r) => r.monitoring_published_at !== null)).toBe(true);
      expect(await metric(capped, 'ledger_outbox_monitoring_held')).toBe(0);
      expect(log.mock.calls.some(([line]) => String((line as { msg?: string })?.msg).includes('publishing resumed'))).toBe(true);
      await completions(3);
      // every row reached monitoring exactly once, in outbox order
      expect(seen).toEqual(fresh);
      expect(await jobCount(monitoringEvents)).toBe(3);
    } finally {
      warn.mockRestore();
      log.mockRestore();
      await worker?.close();
      await small.onApplicationShutdown();
    }
  }, 20_000);
});
