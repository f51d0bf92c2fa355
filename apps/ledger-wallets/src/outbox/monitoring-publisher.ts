import { Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { Counter, Gauge } from 'prom-client';
import { LEDGER_EVENT_BATCH_JOB, QUEUES } from '@mm/contracts';
import { type MetricsService, withTimeout } from '@mm/platform';
import type { LedgerDb } from '../db/ledger-db.service';
import type { LedgerWalletsConfig } from '../ledger-wallets.config';
import { type OutboxRow, PUBLISH_TIMEOUT_MS, batchJobId, batchOf, jobOptions, openQueue } from './outbox-batch';

/**
 * The states of a job the monitoring worker has not finished: each holds its batch in Redis. One
 * Lua call reads them all (an LLEN or ZCARD each). Failed jobs are left out: a job fails for good
 * only after its 20 attempts (days of backoff), and BullMQ drops it 7 days later.
 */
const BACKLOG_STATES = ['waiting', 'prioritized', 'delayed', 'active'] as const;

/** While held back, the warning is repeated at most this often (a poll comes every few seconds). */
const CAP_WARNING_EVERY_MS = 60_000;

/**
 * The monitoring feed's own cursor over `ledger.outbox` (`monitoring_published_at`; docs/monitoring.md,
 * "The feed"): publishes the rows monitoring has not had yet, oldest first, to `monitoring-events`,
 * one `LEDGER_EVENT_BATCH_JOB` per batch with the same id scheme as `ledger-events` (a re-add of the
 * same rows is a no-op), and marks them. It never touches `published_at`, so partners' events never
 * wait for monitoring, and a monitoring add that fails only leaves this cursor behind.
 *
 * Redis keeps everything (noeviction), so the queue is bounded here: before adding, the poll counts
 * the jobs the worker has not finished and adds at most LEDGER_MONITORING_BACKLOG_MAX_JOBS minus that
 * many. Above it the rows simply wait in PostgreSQL, nothing is lost, and the poll after the worker
 * caught up resumes from the oldest. Every poll sets the lag gauge (age of the oldest row monitoring
 * has not had), which is what to alert on; while held back a warning names the backlog.
 */
export class MonitoringPublisher {
  private readonly logger = new Logger(MonitoringPublisher.name);
  private queue?: Queue;
  private readonly jobOptions: ReturnType<typeof jobOptions>;
  private readonly published: Counter;
  private readonly failures: Counter;
  private readonly lag: Gauge;
  private readonly backlog: Gauge;
  private readonly held: Gauge;
  /** When the current hold began (Date.now()), or undefined while adds go through. */
  private heldSince?: number;
  private lastWarning = 0;

  constructor(
    private readonly db: LedgerDb,
    private readonly config: LedgerWalletsConfig,
    metrics: MetricsService,
  ) {
    this.jobOptions = jobOptions(config.LEDGER_OUTBOX_BATCH_SIZE);
    this.published = metrics.counter('ledger_outbox_monitoring_published_total', 'Outbox rows published to monitoring-events');
    this.failures = metrics.counter(
      'ledger_outbox_monitoring_publish_failures_total',
      'Polls of the monitoring cursor that failed (rows kept for the next poll)',
    );
    this.lag = metrics.gauge(
      'ledger_outbox_monitoring_lag_seconds',
      'Age of the oldest outbox row not yet published to monitoring-events (0: none pending)',
    );
    this.backlog = metrics.gauge('ledger_outbox_monitoring_backlog_jobs', 'Unfinished jobs in monitoring-events at the last poll');
    this.held = metrics.gauge('ledger_outbox_monitoring_held', '1 while publishing to monitoring-events is held back by its backlog cap');
  }

  /** Publishes pending rows until none is left, the cap is reached or an add fails. Returns how many rows were published. */
  async publishPending(): Promise<number> {
    let result: { rows: number; full: boolean; backlog: number } | undefined;
    try {
      result = await this.publish();
      return result.rows;
    } catch (error) {
      this.failures.inc();
      throw error;
    } finally {
      // Measured whatever happened: a failing Redis is exactly when the lag grows.
      const lagSeconds = await this.measureLag().catch(() => undefined);
      if (result) this.noteHold(result.full && lagSeconds !== null, result.backlog, lagSeconds ?? undefined);
    }
  }

  async close(): Promise<void> {
    await this.queue?.close().catch(() => undefined);
  }

  private async publish(): Promise<{ rows: number; full: boolean; backlog: number }> {
    const queue = (this.queue ??= openQueue(QUEUES.monitoringEvents, this.config));
    const size = this.config.LEDGER_OUTBOX_BATCH_SIZE;
    // One count per poll, not per batch: replicas polling at once may overshoot by a poll's adds each.
    const backlog = await withTimeout(queue.getJobCountByTypes(...BACKLOG_STATES), PUBLISH_TIMEOUT_MS, 'the monitoring-events queue');
    this.backlog.set(backlog);
    let room = this.config.LEDGER_MONITORING_BACKLOG_MAX_JOBS - backlog;
    let total = 0;
    while (room > 0) {
      const rows = await this.db.query<OutboxRow>(
        `SELECT id, event_type, payload FROM ledger.outbox WHERE monitoring_published_at IS NULL ORDER BY created_at, id LIMIT $1`,
        [size],
      );
      if (rows.length === 0) break;
      const ids = rows.map((r) => r.id);
      // Monitoring reads batch jobs only (it is newer than batching), whatever LEDGER_OUTBOX_BATCH_JOBS says.
      await withTimeout(
        queue.add(LEDGER_EVENT_BATCH_JOB, batchOf(rows), { jobId: batchJobId(ids), ...this.jobOptions }),
        PUBLISH_TIMEOUT_MS,
        'the monitoring-events queue',
      );
      await this.db.query(`UPDATE ledger.outbox SET monitoring_published_at = now() WHERE id = ANY($1::uuid[])`, [ids]);
      this.published.inc(rows.length);
      total += rows.length;
      room--;
      if (rows.length < size) return { rows: total, full: false, backlog };
    }
    return { rows: total, full: room <= 0, backlog };
  }

  /** Seconds since the oldest row monitoring has not had was written; null when there is none. */
  private async measureLag(): Promise<number | null> {
    const [row] = await this.db.query<{ lag: number | null }>(
      `SELECT EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS lag FROM ledger.outbox WHERE monitoring_published_at IS NULL`,
    );
    const lag = row?.lag ?? null;
    this.lag.set(lag === null ? 0 : Math.max(0, lag));
    return lag;
  }

  /** Held back = the cap stopped this poll while rows still wait. Warns on entering the hold and every minute of it. */
  private noteHold(heldNow: boolean, backlog: number, lagSeconds: number | undefined): void {
    this.held.set(heldNow ? 1 : 0);
    const now = Date.now();
    if (heldNow) {
      this.heldSince ??= now;
      if (now - this.lastWarning < CAP_WARNING_EVERY_MS) return;
      this.lastWarning = now;
      this.logger.warn({
        msg: 'monitoring-events is at its backlog cap: outbox rows wait in ledger.outbox until the monitoring worker catches up',
        alert: 'ledger.monitoring_backlog_capped',
        backlogJobs: backlog,
        maxJobs: this.config.LEDGER_MONITORING_BACKLOG_MAX_JOBS,
        lagSeconds,
        heldForSeconds: Math.round((now - this.heldSince) / 1_000),
      });
    } else if (this.heldSince !== undefined) {
      this.logger.log({
        msg: 'monitoring-events is below its backlog cap again: publishing resumed',
        heldForSeconds: Math.round((now - this.heldSince) / 1_000),
      });
      this.heldSince = undefined;
      this.lastWarning = 0;
    }
  }
}
