import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { TERMINAL_STATUSES } from '@mm/contracts';
import { PeriodicJob, ALWAYS_LEADER, JOB_LEASE, type JobLease } from '@mm/platform';
import { OrchestratorConfig } from '../orchestrator.config';
import { LedgerClient } from '../ledger-client/ledger.client';
import { LimitsService } from '../limits/limits.service';
import { IntentConfirmService } from './intent-confirm.service';
import { PaymentIntentStore } from './payment-intent.store';

const BATCH = 50;

/**
 * Finishes the orchestrator's own work that a confirm left unfinished when nobody retries it. It
 * mirrors nothing: its work list is this service's own records (a confirm request fixed, the
 * record neither SETTLED nor CLOSED), and the ledger's answer decides what is left to do.
 * - The ledger executed the intent but the success was never recorded here (this process died
 *   between the ledger's commit and its own): the history row, the two SMS and the limit usage are
 *   written from the ledger's stored answer (the same request under the same key is replayed,
 *   never executed again). Nothing else would ever write them: this is why the job stays.
 * - The ledger ended the intent otherwise (expired, failed, canceled): the limit hold goes back
 *   (it would lapse `holdSeconds` after the intent's expiry anyway) and the record is CLOSED,
 *   leaving the work list.
 * It only looks at confirms quiet for longer than a confirm can take (every ledger attempt with its
 * timeout), so it never races a confirm still in flight.
 */
@Injectable()
export class PaymentReconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PaymentReconciler.name);
  private readonly quietMs: number;
  // The interval's passes ignore their errors: each intent's failure is logged where it happens.
  private readonly job = new PeriodicJob<number, number>(
    'orchestrator.payment-reconciler',
    (quietMs = this.quietMs) => this.pass(quietMs),
    () => undefined,
  );

  constructor(
    private readonly config: OrchestratorConfig,
    private readonly store: PaymentIntentStore,
    private readonly ledger: LedgerClient,
    private readonly limits: LimitsService,
    @Inject(IntentConfirmService) private readonly confirms: IntentConfirmService,
    @Inject(JOB_LEASE) private readonly leases: JobLease = ALWAYS_LEADER,
  ) {
    this.quietMs = config.LEDGER_TIMEOUT_MS * config.LEDGER_RETRY_ATTEMPTS + 5_000;
  }

  onApplicationBootstrap(): void {
    this.job.start(this.config.PAYMENTS_RECONCILE_INTERVAL_MS, this.leases);
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  /** One pass (or the one in progress); answers how many intents it finished or closed. `quietMs` overrides the wait (tests). */
  runOnce(quietMs?: number): Promise<number> {
    return this.job.runNow(quietMs);
  }

  private async pass(quietMs: number): Promise<number> {
    let done = 0;
    for (const record of await this.store.unfinishedConfirms(quietMs, BATCH)) {
      const intentId = record.ledgerIntentId!;
      try {
        const current = await this.ledger.getIntent(intentId);
        if (current.status === 'SUCCEEDED') {
          const view = await this.ledger.transition(intentId, record.confirmRequest!, `confirm:${intentId}`);
          await this.confirms.finishCommitted(record, view);
          this.logger.warn({
            msg: 'recorded a payment the ledger had committed without an answer',
            intentId,
            referenceId: view.referenceId,
          });
          done++;
        } else if (TERMINAL_STATUSES.includes(current.status)) {
          await this.limits.release(record.idempotencyKey);
          await this.store.close(record.id, current.failureReason ?? current.status);
          done++;
        } else {
          // Still open in the ledger (a confirm it refused, say for the balance cap): looked at again
          // after the others, until the customer retries or the ledger ends it.
          await this.store.touch(record.id);
        }
      } catch (error) {
        this.logger.warn({ msg: 'could not reconcile an unfinished confirm; next pass', intentId, err: error });
        await this.store.touch(record.id).catch(() => undefined);
      }
    }
    return done;
  }
}
