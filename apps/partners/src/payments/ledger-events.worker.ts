import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DelayedError, type Job, Worker } from 'bullmq';
import { LEDGER_EVENT_TYPES, QUEUES } from '@mm/contracts';
import { bullOptions } from '@mm/platform';
import { PartnersConfig } from '../partners.config';
import { isTransactionCompleted } from './ledger-event';
import { OrderPaymentService, type PaymentOutcome } from './order-payment.service';

const MAX_RETRY_DELAY_MS = 60_000;

/**
 * Thin consumer of the ledger's `ledger-events` queue. The ledger adds its jobs without retry
 * options, so a failure here must not be left to BullMQ's default (one attempt, then the failed
 * set — a lost payment notification): a job that fails for a passing reason (database busy, a
 * restart) is put back in the delayed set with a growing delay, as many times as it takes.
 */
@Injectable()
export class LedgerEventsWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(LedgerEventsWorker.name);
  private worker?: Worker;

  constructor(
    private readonly config: PartnersConfig,
    private readonly payments: OrderPaymentService,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = new Worker(QUEUES.ledgerEvents, (job: Job, token?: string) => this.process(job, token), {
      ...bullOptions(this.config),
      concurrency: this.config.PARTNERS_LEDGER_EVENTS_CONCURRENCY,
      // A replica killed mid-event leaves the job active; it is re-run when its lock lapses. BullMQ
      // fails a job on its second stall by default, and the ledger enqueues these events once, so
      // two crashes on the same event would strand an order.paid: applying an event is idempotent
      // (event id and order), hence no limit on stalls.
      lockDuration: this.config.PARTNERS_LEDGER_EVENTS_LOCK_MS,
      stalledInterval: this.config.PARTNERS_LEDGER_EVENTS_LOCK_MS,
      maxStalledCount: Number.MAX_SAFE_INTEGER,
    });
    this.worker.on('error', (error) => this.logger.warn({ msg: 'ledger events worker error', err: { message: error.message } }));
  }

  async process(job: Job, token?: string): Promise<PaymentOutcome | 'ignored' | 'invalid'> {
    if (job.name !== LEDGER_EVENT_TYPES.transactionCompleted) return 'ignored';
    if (!isTransactionCompleted(job.data)) {
      this.logger.error({ msg: 'malformed transaction.completed event ignored', alert: 'partners.ledger_event_invalid', jobId: job.id });
      return 'invalid';
    }
    try {
      return await this.payments.applyTransactionCompleted(job.data);
    } catch (error) {
      const delay = Math.min(MAX_RETRY_DELAY_MS, 500 * 2 ** Math.min(10, Math.max(0, (job.attemptsStarted ?? 1) - 1)));
      this.logger.warn({
        msg: 'ledger event not applied yet; retrying',
        jobId: job.id,
        delayMs: delay,
        err: { message: (error as Error).message },
      });
      await job.moveToDelayed(Date.now() + delay, token);
      throw new DelayedError();
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
  }
}
