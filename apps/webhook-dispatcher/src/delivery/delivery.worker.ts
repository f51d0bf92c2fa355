import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import { bullOptions } from '@mm/platform';
import { QUEUES, WEBHOOK_JOBS, WEBHOOK_MAX_ATTEMPTS, type WebhookDeliverJob, type WebhookResendJob } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { webhookBackoffMs } from './backoff';
import { DeliveryAttemptFailed, DeliveryService, type JobContext, eventIdOfJob } from './delivery.service';
import type { DeliveryOutcome } from './webhook-metrics';
import { WebhookSender } from './webhook-sender';

/** Errors no retry can fix: the job fails at once instead of burning its attempts. */
const PERMANENT = new Set(['INVALID_WEBHOOK_EVENT', 'WEBHOOK_EVENT_NOT_FOUND']);

/**
 * Thin BullMQ processor on `webhooks`: hands the job to DeliveryService and lets its error
 * propagate, so BullMQ schedules the retry with the dispatcher's backoff (base × 2^n).
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DeliveryWorker.name);
  private worker?: Worker;

  constructor(
    private readonly config: WebhookDispatcherConfig,
    private readonly delivery: DeliveryService,
    private readonly sender: WebhookSender,
  ) {}

  onApplicationBootstrap(): void {
    const base = this.config.WEBHOOK_BACKOFF_BASE_MS;
    this.worker = new Worker(QUEUES.webhooks, (job: Job) => this.process(job), {
      ...bullOptions(this.config),
      concurrency: this.config.WEBHOOK_WORKER_CONCURRENCY,
      settings: { backoffStrategy: (attemptsMade: number) => webhookBackoffMs(base, attemptsMade) },
      // A crashed dispatcher's jobs are re-run once their lock lapses (at-least-once; the receiver
      // deduplicates by Svc-Event-Id). BullMQ's default fails a job on its second stall, which would
      // strand an event after two crashes: allow as many stalls as the job has attempts.
      lockDuration: this.config.WEBHOOK_JOB_LOCK_MS,
      stalledInterval: this.config.WEBHOOK_JOB_LOCK_MS,
      maxStalledCount: WEBHOOK_MAX_ATTEMPTS,
    });
    this.worker.on('error', (error) => this.logger.warn({ msg: 'webhook worker error', err: { message: error.message } }));
    this.worker.on('failed', (job, error) => {
      if (job) void this.onFailed(job, error);
    });
  }

  /**
   * Every failed run of a job. A delivery attempt that failed recorded itself (and its last one
   * marked the event failed); anything else that made BullMQ give up (finishedOn set: no retry
   * left, or UnrecoverableError) is recorded here. A job that stalls too often is failed by BullMQ
   * without this event: the pending sweep finds those.
   */
  private async onFailed(job: Job, error: Error): Promise<void> {
    if (error instanceof DeliveryAttemptFailed) return;
    const ref = { jobId: job.id ?? '', name: job.name, data: job.data as unknown, attemptsMade: job.attemptsMade, reason: error.message };
    if (!job.finishedOn) {
      this.logger.warn({
        msg: 'webhook job errored; BullMQ retries it',
        eventId: eventIdOfJob(job.name, job.data),
        jobId: ref.jobId,
        attemptsMade: ref.attemptsMade,
        err: { message: error.message },
      });
      return;
    }
    await this.delivery.giveUp(ref);
  }

  async process(job: Job): Promise<DeliveryOutcome> {
    const ctx: JobContext = {
      jobId: job.id ?? '',
      attemptsMade: job.attemptsMade,
      // A job enqueued without `attempts` runs once: treat its only attempt as the last.
      maxAttempts: job.opts.attempts ?? 1,
      enqueuedAt: job.timestamp,
    };
    try {
      switch (job.name) {
        case WEBHOOK_JOBS.deliver:
          return await this.delivery.deliverNew(job.data as WebhookDeliverJob, ctx);
        case WEBHOOK_JOBS.resend:
          return await this.delivery.resend(job.data as WebhookResendJob, ctx);
        default:
          throw new UnrecoverableError(`unknown webhook job name ${job.name}`);
      }
    } catch (error) {
      // Recorded by the 'failed' listener once BullMQ has moved the job to failed.
      if (error instanceof AppException && PERMANENT.has(error.code)) throw new UnrecoverableError(`${error.code}: ${error.message}`);
      throw error;
    }
  }

  async onModuleDestroy(): Promise<void> {
    // Finish the attempts in flight (their results are logged) before the pools close.
    await this.worker?.close();
    this.sender.close();
  }
}
