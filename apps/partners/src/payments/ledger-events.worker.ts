import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DelayedError, type Job, Worker } from 'bullmq';
import { LEDGER_EVENT_BATCH_JOB, LEDGER_EVENT_TYPES, QUEUES, ledgerEventsOfJob } from '@mm/contracts';
import { bullOptions } from '@mm/platform';
import { PartnersConfig } from '../partners.config';
import { isTransactionCompleted } from './ledger-event';
import { OrderPaymentService, type PaymentOutcome } from './order-payment.service';

const MAX_RETRY_DELAY_MS = 60_000;

type EventOutcome = PaymentOutcome | 'ignored' | 'invalid';

/**
 * Thin consumer of the ledger's `ledger-events` queue. A failure here must not be left to BullMQ's
 * attempts (a fixed count, then the failed set — a lost payment notification): a job whose events
 * fail for a passing reason (database busy, a restart) is put back in the delayed set with a
 * growing delay, as many times as it takes.
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

  /**
   * Applies every event of the job (a relay batch, or one event from an older ledger), at most
   * `PARTNERS_LEDGER_EVENTS_CONCURRENCY` at once. Events that fail for a passing reason are kept:
   * the job's data is cut down to them and the job goes back to the delayed set, so a retry does
   * not re-apply the others (which would be harmless, since applying is idempotent per event id).
   * Answers the outcome of each event, in order.
   */
  async process(job: Job, token?: string): Promise<EventOutcome[]> {
    const events = ledgerEventsOfJob(job);
    const outcomes: EventOutcome[] = new Array<EventOutcome>(events.length);
    const failed: { index: number; error: unknown }[] = [];
    let next = 0;
    const lane = async (): Promise<void> => {
      for (let i = next++; i < events.length; i = next++) {
        try {
          outcomes[i] = await this.apply(job, events[i]);
        } catch (error) {
          failed.push({ index: i, error });
        }
      }
    };
    const lanes = Math.max(1, Math.min(events.length, this.config.PARTNERS_LEDGER_EVENTS_CONCURRENCY ?? 1));
    await Promise.all(Array.from({ length: lanes }, lane));
    if (failed.length === 0) return outcomes;

    const delay = Math.min(MAX_RETRY_DELAY_MS, 500 * 2 ** Math.min(10, Math.max(0, (job.attemptsStarted ?? 1) - 1)));
    this.logger.warn({
      msg: 'ledger events not applied yet; retrying',
      jobId: job.id,
      failed: failed.length,
      of: events.length,
      delayMs: delay,
      err: { message: (failed[0].error as Error).message },
    });
    // Only the events still to apply stay in the job (in their order): a restart after this line
    // re-runs just those.
    if (job.name === LEDGER_EVENT_BATCH_JOB && failed.length < events.length) {
      const left = failed.map((f) => f.index).sort((a, b) => a - b);
      await job.updateData({ events: left.map((i) => events[i].data) });
    }
    await job.moveToDelayed(Date.now() + delay, token);
    throw new DelayedError();
  }

  private async apply(job: Job, event: { type: string; data: unknown }): Promise<EventOutcome> {
    if (event.type !== LEDGER_EVENT_TYPES.transactionCompleted) return 'ignored';
    if (!isTransactionCompleted(event.data)) {
      this.logger.error({ msg: 'malformed transaction.completed event ignored', alert: 'partners.ledger_event_invalid', jobId: job.id });
      return 'invalid';
    }
    return this.payments.applyTransactionCompleted(event.data);
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
  }
}
