import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { Counter } from 'prom-client';
import { QUEUES } from '@mm/contracts';
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
 * Publishes committed outbox rows (written in the money transaction) to the BullMQ queue
 * `ledger-events`, job name = event type, job id = outbox id, so publishing a row twice (a crash
 * between add and mark, two relays) is a no-op on the queue. A row is marked published only after
 * Redis accepted it; while Redis is down the rows simply wait, oldest first, nothing is lost.
 */
/**
 * A consumer that crashes mid-job must get the event again (BullMQ counts a stalled job as an attempt),
 * and finished jobs must not pile up in Redis: the outbox row, not the queue, is the durable record.
 */
const LEDGER_EVENT_JOB_OPTIONS = {
  attempts: 20,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: { age: 3_600, count: 100_000 },
  removeOnFail: { age: 7 * 86_400 },
} as const;

@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private queue?: Queue;
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
  }

  /** One poll, never overlapping another. */
  tick(): Promise<number> {
    return this.job.runNow();
  }

  /** Publishes pending rows in creation order until none is left or one fails. Returns how many were published. */
  async publishPending(): Promise<number> {
    const queue = this.getQueue();
    let total = 0;
    for (;;) {
      const rows = await this.db.query<OutboxRow>(
        `SELECT id, event_type, payload FROM ledger.outbox WHERE published_at IS NULL ORDER BY created_at, id LIMIT $1`,
        [this.config.LEDGER_OUTBOX_BATCH_SIZE],
      );
      if (rows.length === 0) return total;
      const ids = rows.map((r) => r.id);
      try {
        // One round trip to Redis and one UPDATE per batch; job ids make a re-add a no-op.
        await withTimeout(
          queue.addBulk(rows.map((r) => ({ name: r.event_type, data: r.payload, opts: { jobId: r.id, ...LEDGER_EVENT_JOB_OPTIONS } }))),
          PUBLISH_TIMEOUT_MS,
          'the ledger-events queue',
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

  private getQueue(): Queue {
    if (!this.queue) {
      this.queue = new Queue(QUEUES.ledgerEvents, bullOptions(this.config));
      // A connection error is reported by the failing add(); the listener keeps it from crashing the process.
      this.queue.on('error', () => undefined);
    }
    return this.queue;
  }
}
