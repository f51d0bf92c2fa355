import { createHash } from 'node:crypto';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { Counter } from 'prom-client';
import { LEDGER_EVENT_BATCH_JOB, type LedgerEventBatch, QUEUES } from '@mm/contracts';
import { MetricsService, PeriodicJob, bullOptions, withTimeout } from '@mm/platform';
import { LedgerDb } from '../db/ledger-db.service';
import { LedgerWalletsConfig } from '../ledger-wallets.config';

interface OutboxRow {
  id: string;
  event_type: string;
  payload: Record<string, unknown>;
}

const PUBLISH_TIMEOUT_MS = 2_000;

/**
 * A consumer that crashes mid-job must get the events again (BullMQ counts a stalled job as an attempt),
 * and finished jobs must not pile up in Redis: the outbox row, not the queue, is the durable record.
 * A completed job is kept only to turn a re-add of the same rows into a no-op, which matters for
 * the moments between an add and its mark: an hour, and at most KEPT_EVENTS events' worth of jobs.
 */
const KEPT_EVENTS = 100_000;

function jobOptions(eventsPerJob: number) {
  return {
    attempts: 20,
    backoff: { type: 'exponential', delay: 1_000 },
    removeOnComplete: { age: 3_600, count: Math.ceil(KEPT_EVENTS / eventsPerJob) },
    removeOnFail: { age: 7 * 86_400 },
  } as const;
}

/**
 * Publishes committed outbox rows (written in the money transaction) to the BullMQ queue
 * `ledger-events`: the rows of one batch (oldest first) as one job (`LEDGER_EVENT_BATCH_JOB`),
 * whose id is derived from the row ids, so publishing the same batch twice (two relays) is a no-op
 * on the queue. One job per batch because adding a job is one Redis script call whatever its
 * size: one per event cost the ledger about a tenth of its CPU per confirm under load. Rows are
 * marked published only after Redis accepted the job; while Redis is down they simply wait, oldest
 * first, nothing is lost. A crash between the add and the mark re-publishes the rows, possibly cut
 * into other batches (a new job, events applied twice): consumers are idempotent on each event's
 * id. With LEDGER_OUTBOX_BATCH_JOBS=false each row is its own job (id = row id), for the time an
 * older partners release still consumes the queue.
 *
 * Each batch also goes to `monitoring-events` for the orchestrator's transaction monitoring, as one
 * batch job under the same id (a second worker on `ledger-events` would take jobs from partners):
 * the two adds run side by side, one extra Redis call per batch, and the rows are marked only when
 * both queues accepted them. A retry re-adds to both; the one that had it already ignores it.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private queue?: Queue;
  private monitoringQueue?: Queue;
  private readonly batchJobOptions: ReturnType<typeof jobOptions>;
  private readonly singleJobOptions = jobOptions(1);
  // A failed poll is logged and answers 0 here, so the job itself never fails.
  private readonly job = new PeriodicJob(
    () =>
      this.publishPending().catch((error: unknown) => {
        this.logger.warn({ err: error }, 'outbox relay poll failed; rows stay pending');
        return 0;
      }),
    () => undefined,
  );
  private readonly published: Counter;
  private readonly failures: Counter;

  constructor(
    private readonly db: LedgerDb,
    private readonly config: LedgerWalletsConfig,
    metrics: MetricsService,
  ) {
    this.batchJobOptions = jobOptions(config.LEDGER_OUTBOX_BATCH_SIZE);
    this.published = metrics.counter('ledger_outbox_published_total', 'Outbox rows published to Redis');
    this.failures = metrics.counter(
      'ledger_outbox_publish_failures_total',
      'Outbox publish attempts that failed (rows kept for the next poll)',
    );
  }

  onApplicationBootstrap(): void {
    this.job.start(this.config.LEDGER_OUTBOX_POLL_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.job.stop();
    await this.queue?.close().catch(() => undefined);
    await this.monitoringQueue?.close().catch(() => undefined);
  }

  /** One poll, never overlapping another. */
  tick(): Promise<number> {
    return this.job.runNow();
  }

  /** Publishes pending rows in creation order until none is left or one fails. Returns how many were published. */
  async publishPending(): Promise<number> {
    const queue = this.getQueue();
    const monitoring = this.getMonitoringQueue();
    let total = 0;
    for (;;) {
      const rows = await this.db.query<OutboxRow>(
        `SELECT id, event_type, payload FROM ledger.outbox WHERE published_at IS NULL ORDER BY created_at, id LIMIT $1`,
        [this.config.LEDGER_OUTBOX_BATCH_SIZE],
      );
      if (rows.length === 0) return total;
      const ids = rows.map((r) => r.id);
      try {
        // One job (or one addBulk) per queue, two round trips to Redis side by side, and one UPDATE per batch.
        await withTimeout(
          Promise.all([this.add(queue, rows), this.addForMonitoring(monitoring, rows)]),
          PUBLISH_TIMEOUT_MS,
          'the ledger-events and monitoring-events queues',
        );
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

  private async add(queue: Queue, rows: OutboxRow[]): Promise<unknown> {
    if (!this.config.LEDGER_OUTBOX_BATCH_JOBS) {
      return queue.addBulk(rows.map((r) => ({ name: r.event_type, data: r.payload, opts: { jobId: r.id, ...this.singleJobOptions } })));
    }
    return queue.add(LEDGER_EVENT_BATCH_JOB, batchOf(rows), { jobId: batchJobId(rows.map((r) => r.id)), ...this.batchJobOptions });
  }

  /** Monitoring reads batch jobs only (it is newer than batching), whatever LEDGER_OUTBOX_BATCH_JOBS says. */
  private addForMonitoring(queue: Queue, rows: OutboxRow[]): Promise<unknown> {
    return queue.add(LEDGER_EVENT_BATCH_JOB, batchOf(rows), { jobId: batchJobId(rows.map((r) => r.id)), ...this.batchJobOptions });
  }

  private getQueue(): Queue {
    if (!this.queue) {
      this.queue = new Queue(QUEUES.ledgerEvents, bullOptions(this.config));
      // A connection error is reported by the failing add(); the listener keeps it from crashing the process.
      this.queue.on('error', () => undefined);
    }
    return this.queue;
  }

  private getMonitoringQueue(): Queue {
    if (!this.monitoringQueue) {
      this.monitoringQueue = new Queue(QUEUES.monitoringEvents, bullOptions(this.config));
      this.monitoringQueue.on('error', () => undefined);
    }
    return this.monitoringQueue;
  }
}

/** The rows as one batch, in order; the row's event_type is the event's type even if a payload ever lacked the field. */
function batchOf(rows: OutboxRow[]): LedgerEventBatch {
  const events = rows.map((r) => (r.payload.type === r.event_type ? r.payload : { ...r.payload, type: r.event_type }));
  return { events } as unknown as LedgerEventBatch;
}

/** The same rows give the same id (no ':' — BullMQ refuses it in custom ids). */
export function batchJobId(ids: string[]): string {
  return `batch-${createHash('sha256').update(ids.join(',')).digest('hex').slice(0, 40)}`;
}
