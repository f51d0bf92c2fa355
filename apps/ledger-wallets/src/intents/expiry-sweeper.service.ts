import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { PeriodicJob, ALWAYS_LEADER, JOB_LEASE, type JobLease } from '@mm/platform';
import { LedgerDb } from '../db/ledger-db.service';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import { IntentTransitionService } from './intent-transition.service';

/**
 * Expires intents past their lifetime (docs/ledger.md "Intents": 10 minutes by default) through the
 * same transition as everything else: intent lock, then the source account lock, hold released,
 * event written. Also removes idempotency keys past their 48 h validity
 * (docs/ledger.md "Idempotency").
 */
@Injectable()
export class ExpirySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ExpirySweeper.name);
  private readonly job = new PeriodicJob(
    'ledger.expiry-sweep',
    () => this.sweep(),
    (error) => this.logger.error({ err: error }, 'expiry sweep failed'),
  );

  constructor(
    private readonly db: LedgerDb,
    private readonly transitions: IntentTransitionService,
    private readonly idempotency: IdempotencyService,
    private readonly config: LedgerWalletsConfig,
    @Inject(JOB_LEASE) private readonly leases: JobLease = ALWAYS_LEADER,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start(this.config.LEDGER_EXPIRY_SWEEP_INTERVAL_MS, this.leases);
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  /** Expires every active intent due at `now`; returns how many it expired. */
  async sweep(now: Date = new Date()): Promise<number> {
    let expired = 0;
    for (;;) {
      const due = await this.db.query<{ id: string }>(
        `SELECT id FROM ledger.transaction_intents
         WHERE status IN ('CREATED', 'OTP_SENT', 'OTP_VERIFIED', 'PIN_VERIFIED') AND expires_at <= $1
         ORDER BY expires_at LIMIT 100`,
        [now],
      );
      let progressed = 0;
      for (const { id } of due) {
        try {
          await this.transitions.expire(id, now);
          expired++;
          progressed++;
        } catch (error) {
          // Moved on by a concurrent request between the scan and the lock: nothing to expire.
          if (error instanceof AppException && error.code === 'INVALID_INTENT_TRANSITION') continue;
          throw error;
        }
      }
      if (due.length < 100 || progressed === 0) break;
    }
    if (expired > 0) this.logger.log({ expired }, 'expired stale intents');
    await this.idempotency.purgeExpired();
    return expired;
  }
}
