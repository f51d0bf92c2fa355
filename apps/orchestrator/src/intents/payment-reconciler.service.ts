import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { OrchestratorConfig } from '../orchestrator.config';
import { LedgerClient } from '../ledger-client/ledger.client';
import { TERMINAL_STATUSES } from '../ledger-client/ledger.types';
import { LimitsService } from '../limits/limits.service';
import { IntentConfirmService } from './intent-confirm.service';
import { PaymentIntentStore } from './payment-intent.store';

const BATCH = 50;

/**
 * Finishes what a confirm left unfinished when nobody retries it: an intent the ledger moved to
 * SUCCEEDED whose success this service never recorded (no history entry, no SMS) is recorded from
 * the ledger's stored answer (the same request under the same key is replayed, never executed
 * again); an intent the ledger ended otherwise (expired, failed) gets its status and its limit hold
 * back. It only looks at confirms quiet for longer than a confirm can take (every ledger attempt
 * with its timeout), so it never races a confirm still in flight.
 */
@Injectable()
export class PaymentReconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PaymentReconciler.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  private readonly quietMs: number;

  constructor(
    private readonly config: OrchestratorConfig,
    private readonly store: PaymentIntentStore,
    private readonly ledger: LedgerClient,
    private readonly limits: LimitsService,
    @Inject(IntentConfirmService) private readonly confirms: IntentConfirmService,
  ) {
    this.quietMs = config.LEDGER_TIMEOUT_MS * config.LEDGER_RETRY_ATTEMPTS + 5_000;
  }

  onApplicationBootstrap(): void {
    const every = this.config.PAYMENTS_RECONCILE_INTERVAL_MS;
    if (every <= 0) return;
    this.timer = setInterval(() => void this.runOnce().catch(() => undefined), every);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One pass; answers how many intents it finished or closed. `quietMs` overrides the wait (tests). */
  runOnce(quietMs = this.quietMs): Promise<number> {
    this.running ??= this.pass(quietMs).finally(() => (this.running = undefined));
    return this.running;
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
          await this.store.mirrorStatus(record.id, current.status, current.failureReason);
          await this.limits.release(record.idempotencyKey);
          done++;
        }
      } catch (error) {
        this.logger.warn({ msg: 'could not reconcile an unfinished confirm; next pass', intentId, err: error });
      }
    }
    return done;
  }
}
