import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import { bullOptions } from '@mm/platform';
import { QUEUES, WEBHOOK_JOBS, WEBHOOK_MAX_ATTEMPTS, type WebhookDeliverJob, type WebhookResendJob } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { webhookBackoffMs } from './backoff';
import { DeliveryService, type JobContext } from './delivery.service';
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
      if (error instanceof AppException && PERMANENT.has(error.code)) {
        this.logger.warn({ msg: 'webhook job rejected', jobId: job.id, code: error.code });
        throw new UnrecoverableError(`${error.code}: ${error.message}`);
      }
      throw error;
    }
  }

  async onModuleDestroy(): Promise<void> {
    // Finish the attempts in flight (their results are logged) before the pools close.
    await this.worker?.close();
    this.sender.close();
  }
}
