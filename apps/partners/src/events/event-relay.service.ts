import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { QUEUES, WEBHOOK_JOBS, type WebhookDeliverJob, webhookJobOptions } from '@mm/contracts';
import {
  ALWAYS_LEADER,
  JOB_LEASE,
  type JobLease,
  MetricsService,
  PeriodicJob,
  PgNotifyListener,
  bullOptions,
  queryRows,
  withTimeout,
} from '@mm/platform';
import { PartnersConfig } from '../partners.config';
import { toEnvelope } from './events.service';

interface PendingRow {
  id: string;
  integration_id: string;
  livemode: boolean;
  test_endpoint_id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

/** The channel the events table's insert trigger notifies on commit (migration EventsWakeNotify1765601380000). */
export const PARTNERS_EVENTS_CHANNEL = 'partners_events';

const BATCH = 100;
const PUBLISH_TIMEOUT_MS = 2_000;

/**
 * The outbox relay: events committed in `partners.events` are handed to the dispatcher's `webhooks`
 * queue (job id = event id, so handing one over twice is a no-op) and marked dispatched only once
 * Redis has them. While Redis is away the rows wait and are retried, oldest first: an event is never
 * lost between our commit and the dispatcher. Rows are claimed with SKIP LOCKED, so several replicas
 * share the work without sending one event twice at the same moment.
 *
 * The poll (every PARTNERS_OUTBOX_POLL_MS) runs on the replica leading `partners.event-relay`;
 * besides it, `kick()` right after a commit starts a pass at once on the replica that committed,
 * and the events table's insert trigger notifies every replica on commit (LISTEN on a connection of
 * its own), which kicks them too: an event written by any code path, on any replica, goes out
 * without waiting for the poll (docs/architecture.md, "Waking the outbox relays on commit"). Kicks coalesce (one
 * pass, then one more if any came during it), and the claim's SKIP LOCKED keeps concurrent passes
 * from taking the same row. With the poll off (0) nothing listens either.
 */
@Injectable()
export class EventRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(EventRelay.name);
  private queue?: Queue;
  private readonly job = new PeriodicJob(
    'partners.event-relay',
    () => this.tick(),
    () => undefined,
  );
  private running?: Promise<number>;
  private again = false;
  private readonly published;
  private readonly failures;
  private readonly wake: PgNotifyListener;

  constructor(
    private readonly db: DataSource,
    private readonly config: PartnersConfig,
    metrics: MetricsService,
    @Inject(JOB_LEASE) private readonly leases: JobLease = ALWAYS_LEADER,
  ) {
    this.published = metrics.counter('partners_events_dispatched_total', 'Events handed to the webhook queue');
    this.failures = metrics.counter('partners_events_dispatch_failures_total', 'Relay passes that failed (events kept for the next pass)');
    this.wake = new PgNotifyListener({ name: 'partners events wake', databaseUrl: config.DATABASE_URL, metrics }).on(
      PARTNERS_EVENTS_CHANNEL,
      () => this.kick(),
    );
  }

  onApplicationBootstrap(): void {
    if (this.config.PARTNERS_OUTBOX_POLL_MS <= 0) return;
    this.job.start(this.config.PARTNERS_OUTBOX_POLL_MS, this.leases);
    this.wake.start();
  }

  /** Resolves once the commit wake-up is listening (false if not within `timeoutMs`). */
  wakeReady(timeoutMs?: number): Promise<boolean> {
    return this.wake.ready(timeoutMs);
  }

  async onApplicationShutdown(): Promise<void> {
    this.again = false;
    await this.wake.close();
    await this.job.stop();
    await this.running?.catch(() => undefined);
    await this.queue?.close().catch(() => undefined);
  }

  /** A pass soon (after the current one, if any). */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    void this.tick();
  }

  /** One pass, never overlapping another; resolves with the number of events handed over. */
  tick(): Promise<number> {
    if (this.running) return this.running;
    const run = this.publishPending()
      .catch((error: unknown) => {
        this.failures.inc();
        this.logger.warn({ msg: 'event relay pass failed; events stay pending', err: { message: (error as Error).message } });
        return 0;
      })
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          void this.tick();
        }
      });
    this.running = run;
    return run;
  }

  private async publishPending(): Promise<number> {
    let total = 0;
    for (;;) {
      const count = await this.publishBatch();
      total += count;
      if (count < BATCH) return total;
    }
  }

  private async publishBatch(): Promise<number> {
    const queue = this.getQueue();
    const failed: { ids: string[]; error?: Error } = { ids: [] };
    const count = await this.db
      .transaction(async (tx) => {
        const rows = await queryRows<PendingRow>(
          tx,
          `SELECT e.id, e.integration_id, e.livemode, i.test_endpoint_id, e.type, e.data, e.created_at
             FROM partners.events e JOIN partners.integrations i ON i.id = e.integration_id
            WHERE e.dispatched_at IS NULL
            ORDER BY e.created_at, e.id
            LIMIT ${BATCH}
            FOR UPDATE OF e SKIP LOCKED`,
        );
        if (rows.length === 0) return 0;
        const ids = rows.map((r) => r.id);
        const jobs = rows.map((r) => {
          const data: WebhookDeliverJob = { integrationId: r.livemode ? r.integration_id : r.test_endpoint_id, envelope: toEnvelope(r) };
          return { name: WEBHOOK_JOBS.deliver, data, opts: webhookJobOptions(r.id) };
        });
        try {
          await withTimeout(queue.addBulk(jobs), PUBLISH_TIMEOUT_MS, 'the webhooks queue');
        } catch (error) {
          failed.ids = ids;
          failed.error = error as Error;
          throw error;
        }
        await tx.query(
          `UPDATE partners.events SET dispatched_at = now(), dispatch_attempts = dispatch_attempts + 1, last_error = NULL WHERE id = ANY($1::uuid[])`,
          [ids],
        );
        return rows.length;
      })
      .catch(async (error: unknown) => {
        if (failed.ids.length > 0) {
          await this.db
            .query(`UPDATE partners.events SET dispatch_attempts = dispatch_attempts + 1, last_error = $2 WHERE id = ANY($1::uuid[])`, [
              failed.ids,
              String(failed.error?.message ?? error).slice(0, 500),
            ])
            .catch(() => undefined);
        }
        throw error;
      });
    if (count > 0) this.published.inc(count);
    return count;
  }

  private getQueue(): Queue {
    if (!this.queue) {
      this.queue = new Queue(QUEUES.webhooks, bullOptions(this.config));
      // A connection error surfaces through the failing addBulk; this keeps it from crashing the process.
      this.queue.on('error', () => undefined);
    }
    return this.queue;
  }
}
