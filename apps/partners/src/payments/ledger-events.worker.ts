import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DelayedError, type Job, Worker } from 'bullmq';
import { LEDGER_EVENT_TYPES, QUEUES, ledgerEventsOfJob } from '@mm/contracts';
import type { Counter } from 'prom-client';
import { MetricsService, bullOptions, isUuid } from '@mm/platform';
import { PartnersConfig } from '../partners.config';
import { isTransactionCompleted } from './ledger-event';
import { OrderPaymentService, type PaymentOutcome } from './order-payment.service';

const MAX_RETRY_DELAY_MS = 60_000;

/** Tries after which a job still failing is logged as an alert (each retry waits up to a minute). */
const STUCK_AFTER_ATTEMPTS = 20;

type EventOutcome = PaymentOutcome | 'ignored' | 'invalid';

const eventIdOf = (data: unknown): string => String((data as { eventId?: unknown } | null)?.eventId ?? '');

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
  private readonly lanes: Lanes;
  private readonly stuck: Counter;

  constructor(
    private readonly config: PartnersConfig,
    private readonly payments: OrderPaymentService,
    metrics: MetricsService,
  ) {
    this.lanes = new Lanes(config.PARTNERS_LEDGER_EVENTS_CONCURRENCY ?? 1);
    this.stuck = metrics.counter(
      'partners_ledger_events_stuck_total',
      `Retries of ledger-event jobs still failing after ${STUCK_AFTER_ATTEMPTS} tries (an order.paid that may never go out)`,
    );
  }

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
   * Applies every event of the job (a relay batch, or one event from an older ledger). Events of
   * all the jobs this replica runs share `PARTNERS_LEDGER_EVENTS_CONCURRENCY` lanes, so a backlog
   * of full batches does not ask the database pool for more. When any event fails for a passing
   * reason the whole job goes back to the delayed set: re-applying the events that did succeed is
   * harmless (one insert that finds the event id already recorded), and leaving the job's data
   * untouched means a worker that lost its lock cannot overwrite what another one decided.
   * Answers the outcome of each event, in order.
   */
  async process(job: Job, token?: string): Promise<EventOutcome[]> {
    const events = ledgerEventsOfJob(job);
    const outcomes: EventOutcome[] = new Array<EventOutcome>(events.length);
    const failures: unknown[] = [];
    // A retried batch: the events a previous run applied are found in one read, not one
    // transaction each (a batch held back by one failing event must not cost the database more).
    const applied = (job.attemptsStarted ?? 1) > 1 && events.length > 1 ? await this.alreadyApplied(events) : new Set<string>();
    await Promise.all(
      events.map((event, i) =>
        this.lanes
          .run(() => (applied.has(eventIdOf(event.data)) ? Promise.resolve<EventOutcome>('duplicate') : this.apply(job, event)))
          .then(
            (outcome) => {
              outcomes[i] = outcome;
            },
            (error: unknown) => {
              failures.push(error);
            },
          ),
      ),
    );
    if (failures.length === 0) return outcomes;

    const attempt = job.attemptsStarted ?? 1;
    const delay = Math.min(MAX_RETRY_DELAY_MS, 500 * 2 ** Math.min(10, Math.max(0, attempt - 1)));
    const line = {
      msg: 'ledger events not applied yet; retrying',
      jobId: job.id,
      attempt,
      failed: failures.length,
      of: events.length,
      delayMs: delay,
      err: { message: (failures[0] as Error).message },
    };
    // Retried without limit (a payment notification must not be given up), but a job still failing
    // after STUCK_AFTER_ATTEMPTS tries (some fifteen minutes) most likely holds an event that will
    // not pass by itself: each further try says so as an alert.
    if (attempt >= STUCK_AFTER_ATTEMPTS) {
      this.stuck.inc();
      this.logger.error({ ...line, alert: 'partners.ledger_event_stuck' });
    } else {
      this.logger.warn(line);
    }
    await job.moveToDelayed(Date.now() + delay, token);
    throw new DelayedError();
  }

  private async alreadyApplied(events: { data: unknown }[]): Promise<Set<string>> {
    const ids = events.map((e) => eventIdOf(e.data)).filter((id) => isUuid(id));
    return this.payments.appliedEventIds(ids);
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

/** At most `size` tasks at once, the others started in arrival order as lanes free up. */
export class Lanes {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = Math.max(1, size);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      // The lane passes straight to the next waiter, or becomes free.
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
