import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type Job, Worker } from 'bullmq';
import { LEDGER_EVENT_TYPES, QUEUES, ledgerEventsOfJob } from '@mm/contracts';
import { bullOptions } from '@mm/platform';
import { OrchestratorConfig } from '../../orchestrator.config';
import { type IngestResult, MonitoringFeed } from './monitoring-feed.service';

/**
 * Thin consumer of `monitoring-events` (the ledger relay's batches, published there beside
 * `ledger-events`): hands the job's `transaction.completed` events to the feed and lets a failure
 * propagate, so BullMQ retries the job with the relay's backoff (storing is idempotent per event).
 * One job at a time per replica: monitoring is not in a hurry, and the feed's per-person locks keep
 * replicas from judging one person at once.
 */
@Injectable()
export class MonitoringWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(MonitoringWorker.name);
  private worker?: Worker;

  constructor(
    private readonly config: OrchestratorConfig,
    private readonly feed: MonitoringFeed,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = new Worker(QUEUES.monitoringEvents, (job: Job) => this.process(job), { ...bullOptions(this.config), concurrency: 1 });
    this.worker.on('error', (error) => this.logger.warn({ msg: 'monitoring worker error', err: { message: error.message } }));
    this.worker.on('failed', (job, error) =>
      this.logger.warn({
        msg: 'monitoring batch failed; BullMQ retries it',
        jobId: job?.id,
        attempts: job?.attemptsMade,
        err: { message: error.message },
      }),
    );
  }

  process(job: Pick<Job, 'name' | 'data'>): Promise<IngestResult> {
    const events = ledgerEventsOfJob(job).filter((e) => e.type === LEDGER_EVENT_TYPES.transactionCompleted);
    return this.feed.ingest(events.map((e) => e.data));
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
  }
}
