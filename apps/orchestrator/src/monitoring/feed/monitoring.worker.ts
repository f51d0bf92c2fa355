import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type Job, Worker } from 'bullmq';
import { DataSource } from 'typeorm';
import { LEDGER_EVENT_TYPES, QUEUES, ledgerEventsOfJob } from '@mm/contracts';
import { bullOptions, queryRows } from '@mm/platform';
import { OrchestratorConfig } from '../../orchestrator.config';
import { type IngestResult, MonitoringFeed } from './monitoring-feed.service';

type FeedJob = Pick<Job, 'id' | 'name' | 'data'>;

/**
 * Thin consumer of `monitoring-events` (the ledger relay's batches, published there beside
 * `ledger-events`): hands the job's `transaction.completed` events to the feed and lets a failure
 * propagate, so BullMQ retries the job with the relay's backoff (storing is idempotent per event).
 * One job at a time per replica: monitoring is not in a hurry, and the feed's per-person locks keep
 * replicas from judging one person at once.
 *
 * A job that used up its attempts is kept as a dead letter in `monitoring_dead_letters` (BullMQ
 * forgets failed jobs after 7 days), and every dead letter not yet stored is replayed through the
 * feed when the worker starts: after the fix is deployed (docs/monitoring.md#dead-letters).
 */
@Injectable()
export class MonitoringWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(MonitoringWorker.name);
  private worker?: Worker;
  private replaying?: Promise<unknown>;

  constructor(
    private readonly config: OrchestratorConfig,
    private readonly feed: MonitoringFeed,
    private readonly db: DataSource,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = new Worker(QUEUES.monitoringEvents, (job: Job) => this.process(job), { ...bullOptions(this.config), concurrency: 1 });
    this.worker.on('error', (error) => this.logger.warn({ msg: 'monitoring worker error', err: { message: error.message } }));
    this.worker.on('failed', (job, error) => {
      if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) {
        void this.keepDeadLetter(job, error).catch((err: unknown) =>
          this.logger.error({ msg: 'monitoring dead letter not kept', alert: 'monitoring.dead_letter_lost', jobId: job.id, err }),
        );
        return;
      }
      this.logger.warn({
        msg: 'monitoring batch failed; BullMQ retries it',
        jobId: job?.id,
        attempts: job?.attemptsMade,
        err: { message: error.message },
      });
    });
    this.replaying = this.replayDeadLetters().catch((err: unknown) =>
      this.logger.error({ msg: 'monitoring dead letters not replayed', alert: 'monitoring.dead_letter_replay_failed', err }),
    );
  }

  process(job: FeedJob): Promise<IngestResult> {
    return this.feed.ingest(this.eventsOf(job), job.id ?? null);
  }

  /** A batch that will not be retried again: kept with its events, once per job id. */
  async keepDeadLetter(job: FeedJob & { attemptsMade: number }, error: Error): Promise<void> {
    await this.db.query(
      `INSERT INTO orchestrator.monitoring_dead_letters (job_id, events, attempts, error) VALUES ($1, $2::jsonb, $3, $4)
       ON CONFLICT (job_id) DO NOTHING`,
      [
        job.id,
        JSON.stringify(this.eventsOf(job)),
        Math.max(1, job.attemptsMade),
        (error.message || 'error without a message').slice(0, 1000),
      ],
    );
    this.logger.error({
      msg: 'monitoring batch gave up after its last attempt; kept as a dead letter',
      alert: 'monitoring.dead_letter',
      jobId: job.id,
      attempts: job.attemptsMade,
      err: { message: error.message },
    });
  }

  /**
   * Stores every dead letter not replayed yet through the feed (idempotent per event: what was
   * stored since is a duplicate). One that fails again stays pending with its error and count.
   */
  async replayDeadLetters(): Promise<{ replayed: number; failed: number }> {
    const pending = await queryRows<{ job_id: string; events: unknown[] }>(
      this.db,
      `SELECT job_id, events FROM orchestrator.monitoring_dead_letters WHERE replayed_at IS NULL ORDER BY failed_at, job_id`,
    );
    let replayed = 0;
    let failed = 0;
    for (const letter of pending) {
      try {
        const result = await this.feed.ingest(letter.events, letter.job_id);
        await this.db.query(
          `UPDATE orchestrator.monitoring_dead_letters
              SET replayed_at = now(), replay_result = $2::jsonb, replay_attempts = replay_attempts + 1, replay_error = NULL
            WHERE job_id = $1 AND replayed_at IS NULL`,
          [
            letter.job_id,
            JSON.stringify({ stored: result.stored, duplicates: result.duplicates, invalid: result.invalid, alerts: result.alerts }),
          ],
        );
        replayed += 1;
      } catch (error) {
        failed += 1;
        const message = error instanceof Error ? error.message : String(error);
        await this.db.query(
          `UPDATE orchestrator.monitoring_dead_letters SET replay_attempts = replay_attempts + 1, replay_error = $2
            WHERE job_id = $1 AND replayed_at IS NULL`,
          [letter.job_id, (message || 'error without a message').slice(0, 1000)],
        );
        this.logger.error({
          msg: 'monitoring dead letter replay failed',
          alert: 'monitoring.dead_letter',
          jobId: letter.job_id,
          err: error,
        });
      }
    }
    if (pending.length > 0) this.logger.log({ msg: 'monitoring dead letters replayed', replayed, failed });
    return { replayed, failed };
  }

  private eventsOf(job: Pick<Job, 'name' | 'data'>): unknown[] {
    return ledgerEventsOfJob(job)
      .filter((e) => e.type === LEDGER_EVENT_TYPES.transactionCompleted)
      .map((e) => e.data);
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
    await this.replaying;
  }
}
