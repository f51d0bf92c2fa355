import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { Counter } from 'prom-client';
import { LEDGER_EVENT_BATCH_JOB, QUEUES } from '@mm/contracts';
import { MetricsService, PeriodicJob, PgNotifyListener, withTimeout, ALWAYS_LEADER, JOB_LEASE, type JobLease } from '@mm/platform';
import { LedgerDb } from '../db/ledger-db.service';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import { MonitoringPublisher } from './monitoring-publisher';
import { type OutboxRow, PUBLISH_TIMEOUT_MS, batchJobId, batchOf, jobOptions, openQueue } from './outbox-batch';

export { batchJobId } from './outbox-batch';

/** The channel the outbox's insert trigger notifies on commit (migration OutboxWakeNotify1765601370000). */
export const LEDGER_OUTBOX_CHANNEL = 'ledger_outbox';

/**
 * A wake-up starts a pass no sooner than this after the previous pass began. Under load a commit
 * arrives every millisecond or so: passes back to back would each carry a handful of rows, and a
 * pass costs two statements and a Redis call whatever it carries. At most 50 woken passes a second
 * keeps batches full; a lone commit waits for none of it.
 */
const WAKE_MIN_GAP_MS = 20;

/**
 * Publishes committed outbox rows (written in the money transaction) to the BullMQ queue
 * `ledger-events`: the rows of one batch (oldest first) as one job (`LEDGER_EVENT_BATCH_JOB`),
 * whose id is derived from the row ids, so publishing the same batch twice (two relays) is a no-op
 * on the queue. One job per batch because adding a job is one Redis script call whatever its
 * size: one per event cost the ledger about a tenth of its CPU per confirm under load. Rows are
 * marked published (`published_at`) only after Redis accepted the job; while Redis is down they
 * simply wait, oldest first, nothing is lost. A crash between the add and the mark re-publishes the
 * rows, possibly cut into other batches (a new job, events applied twice): consumers are idempotent
 * on each event's id. With LEDGER_OUTBOX_BATCH_JOBS=false each row is its own job (id = row id), for
 * the time an older partners release still consumes the queue.
 *
 * The orchestrator's transaction monitoring reads the same rows from `monitoring-events` through a
 * second loop with its own cursor (`MonitoringPublisher`, `monitoring_published_at`, polled every
 * LEDGER_MONITORING_POLL_MS and capped by the queue's backlog): the two never wait for each other,
 * so trouble on the monitoring queue cannot hold back partners' order.paid. A row may be deleted
 * only once both cursors passed it (nothing deletes outbox rows today). LEDGER_OUTBOX_POLL_MS=0
 * turns both loops off.
 *
 * The `ledger-events` loop does not wait for its poll (docs/architecture.md, "Waking the outbox relays on commit"):
 * the outbox's insert trigger sends a NOTIFY that PostgreSQL delivers when the transaction commits,
 * every replica LISTENs for it on a connection of its own, and the replica leading the job starts a
 * pass at once (`PeriodicJob.runSoon`: lease confirmed first, a burst of commits coalesced into the
 * pass under way plus one more). Followers ignore it, so the loop still runs on one replica only;
 * it reads the rows without locking them, and a second relay running beside it would publish the
 * same rows again (harmless: same job id for the same batch, and consumers are idempotent on the
 * event id, but wasted). A lost notification, or one sent while the LISTEN connection was down,
 * costs only the wait for the next poll; after a reconnection a pass runs anyway.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private queue?: Queue;
  private readonly monitoring: MonitoringPublisher;
  private readonly batchJobOptions: ReturnType<typeof jobOptions>;
  private readonly singleJobOptions = jobOptions(1);
  // A failed poll is logged and answers 0 here, so the job itself never fails.
  private readonly job = new PeriodicJob(
    'ledger.outbox-relay',
    () =>
      this.publishPending().catch((error: unknown) => {
        this.logger.warn({ err: error }, 'outbox relay poll failed; rows stay pending');
        return 0;
      }),
    () => undefined,
  );
  private readonly monitoringJob = new PeriodicJob(
    'ledger.monitoring-relay',
    () =>
      this.monitoring.publishPending().catch((error: unknown) => {
        this.logger.warn({ err: error }, 'monitoring-events poll failed; rows stay pending for monitoring (partners are not held)');
        return 0;
      }),
    () => undefined,
  );
  private readonly published: Counter;
  private readonly failures: Counter;
  private readonly wake: PgNotifyListener;
  private wakeTimer?: NodeJS.Timeout;
  /** when the latest `ledger-events` pass began (Date.now()) */
  private lastPassAt = 0;

  constructor(
    private readonly db: LedgerDb,
    private readonly config: LedgerWalletsConfig,
    metrics: MetricsService,
    @Inject(JOB_LEASE) private readonly leases: JobLease = ALWAYS_LEADER,
  ) {
    this.batchJobOptions = jobOptions(config.LEDGER_OUTBOX_BATCH_SIZE);
    this.monitoring = new MonitoringPublisher(db, config, metrics);
    this.published = metrics.counter('ledger_outbox_published_total', 'Outbox rows published to ledger-events');
    this.failures = metrics.counter(
      'ledger_outbox_publish_failures_total',
      'Outbox publish attempts that failed (rows kept for the next poll)',
    );
    this.wake = new PgNotifyListener({ name: 'ledger-wallets outbox wake', databaseUrl: config.DATABASE_URL, metrics }).on(
      LEDGER_OUTBOX_CHANNEL,
      () => this.woken(),
    );
  }

  onApplicationBootstrap(): void {
    if (this.config.LEDGER_OUTBOX_POLL_MS <= 0) return;
    this.job.start(this.config.LEDGER_OUTBOX_POLL_MS, this.leases);
    this.monitoringJob.start(this.config.LEDGER_MONITORING_POLL_MS, this.leases);
    this.wake.start();
  }

  /** Resolves once the commit wake-up is listening (false if not within `timeoutMs`). */
  wakeReady(timeoutMs?: number): Promise<boolean> {
    return this.wake.ready(timeoutMs);
  }

  /** A commit's notification: a pass at once, or once WAKE_MIN_GAP_MS has passed since the last one began. */
  private woken(): void {
    if (this.wakeTimer) return;
    const wait = this.lastPassAt + WAKE_MIN_GAP_MS - Date.now();
    if (wait <= 0) return this.job.runSoon();
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.job.runSoon();
    }, wait);
    this.wakeTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.wake.close();
    clearTimeout(this.wakeTimer);
    await Promise.all([this.job.stop(), this.monitoringJob.stop()]);
    await this.queue?.close().catch(() => undefined);
    await this.monitoring.close();
  }

  /** One poll of `ledger-events`, never overlapping another; a failed poll answers 0 and its rows wait. */
  tick(): Promise<number> {
    return this.job.runNow();
  }

  /** One poll of `monitoring-events`, never overlapping another; a failed poll answers 0 and its rows wait. */
  tickMonitoring(): Promise<number> {
    return this.monitoringJob.runNow();
  }

  /** Publishes pending rows in creation order until none is left or one fails. Returns how many were published. */
  async publishPending(): Promise<number> {
    this.lastPassAt = Date.now();
    const queue = (this.queue ??= openQueue(QUEUES.ledgerEvents, this.config));
    let total = 0;
    for (;;) {
      const rows = await this.db.query<OutboxRow>(
        `SELECT id, event_type, payload FROM ledger.outbox WHERE published_at IS NULL ORDER BY created_at, id LIMIT $1`,
        [this.config.LEDGER_OUTBOX_BATCH_SIZE],
      );
      if (rows.length === 0) return total;
      const ids = rows.map((r) => r.id);
      try {
        // One job (or one addBulk) per batch, and one UPDATE.
        await withTimeout(this.add(queue, rows), PUBLISH_TIMEOUT_MS, 'the ledger-events queue');
      } catch (error) {
        this.failures.inc();
        await this.db.query(`UPDATE ledger.outbox SET attempts = attempts + 1, last_error = $2 WHERE id = ANY($1::uuid[])`, [
          ids,
          String((error as Error).message).slice(0, 500),
        ]);
        throw error;
      }
      await this.db.query(
        `UPDATE ledger.outbox SET published_at = now(), attempts = attempts + 1, last_error = NULL WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      this.published.inc(rows.length);
      total += rows.length;
      if (rows.length < this.config.LEDGER_OUTBOX_BATCH_SIZE) return total;
    }
  }

  private add(queue: Queue, rows: OutboxRow[]): Promise<unknown> {
    if (!this.config.LEDGER_OUTBOX_BATCH_JOBS) {
      return queue.addBulk(rows.map((r) => ({ name: r.event_type, data: r.payload, opts: { jobId: r.id, ...this.singleJobOptions } })));
    }
    return queue.add(LEDGER_EVENT_BATCH_JOB, batchOf(rows), { jobId: batchJobId(rows.map((r) => r.id)), ...this.batchJobOptions });
  }
}
