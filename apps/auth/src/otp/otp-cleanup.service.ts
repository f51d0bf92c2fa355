import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PeriodicJob, queryRows, ALWAYS_LEADER, JOB_LEASE, type JobLease } from '@mm/platform';
import { AuthConfig } from '../auth.config';

/** Rows deleted by one statement, and statements per table and run: a run deletes at most 20 000 rows of each. */
const BATCH = 1_000;
const BATCHES_PER_RUN = 20;

/**
 * Auth's periodic clean-up, of rows that nothing else ever removes, every OTP_CLEANUP_INTERVAL_MS
 * (0: never); each part can also be called on demand.
 *
 * - `purge`: the rows of `auth.otp_codes` whose code expired more than OTP_RETENTION_SEC ago (a code
 *   is only ever consumed before it expires, so its use is older still). Every send leaves one row,
 *   stand-in codes included. No reader needs such a row: verification looks at the live code (an
 *   expired one answers OTP_EXPIRED, as no code does), the replays and the PIN reset at codes used
 *   within OTP_PROOF_TTL_SEC (shorter than the retention, config rule), and "used up by wrong tries"
 *   at the last code only while it has not expired.
 * - `forgetUnknownPhones`: the lockout counters of phones without an account whose `forget_at` has
 *   passed (a login already counts such a row as none; see PinLockout.reserveUnknown). Done here
 *   rather than on the login path, which stays one statement.
 *
 * Each deletes in bounded batches that skip rows a request holds; what is left waits for the next run.
 */
@Injectable()
export class AuthCleanup implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AuthCleanup.name);
  private readonly job = new PeriodicJob(
    'auth.cleanup',
    () => this.run(),
    (error) => this.logger.error({ msg: 'auth clean-up failed', err: error }),
  );

  constructor(
    @Inject(AuthConfig) private readonly config: AuthConfig,
    private readonly db: DataSource,
    @Inject(JOB_LEASE) private readonly leases: JobLease = ALWAYS_LEADER,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start(this.config.OTP_CLEANUP_INTERVAL_MS, this.leases);
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  /** One run of the timer: both parts, the second even when the first fails (the first error is then thrown). */
  async run(): Promise<void> {
    const results = [];
    for (const part of [() => this.purge(), () => this.forgetUnknownPhones()]) {
      try {
        await part();
        results.push(undefined);
      } catch (error) {
        results.push(error ?? new Error('clean-up failed'));
      }
    }
    const failure = results.find((r) => r !== undefined);
    if (failure !== undefined) throw failure;
  }

  /** Deletes up to BATCH × BATCHES_PER_RUN OTP rows past the retention; returns how many. */
  async purge(): Promise<number> {
    const deleted = await this.deleteInBatches(
      `DELETE FROM auth.otp_codes WHERE id IN (
         SELECT id FROM auth.otp_codes
          WHERE expires_at < now() - make_interval(secs => $1)
          LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)`,
      [this.config.OTP_RETENTION_SEC],
    );
    if (deleted > 0) this.logger.log({ msg: 'old OTP rows deleted', deleted, retentionSec: this.config.OTP_RETENTION_SEC });
    return deleted;
  }

  /** Deletes up to BATCH × BATCHES_PER_RUN forgotten unknown-phone lockout counters; returns how many. */
  async forgetUnknownPhones(): Promise<number> {
    const deleted = await this.deleteInBatches(
      `DELETE FROM auth.unknown_phone_lockouts WHERE forget_at <= now() AND phone_tag IN (
         SELECT phone_tag FROM auth.unknown_phone_lockouts
          WHERE forget_at <= now()
          ORDER BY forget_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)`,
      [],
    );
    if (deleted > 0) this.logger.log({ msg: 'forgotten unknown-phone lockout counters deleted', deleted });
    return deleted;
  }

  private async deleteInBatches(deleteStatement: string, params: unknown[]): Promise<number> {
    let deleted = 0;
    for (let batch = 0; batch < BATCHES_PER_RUN; batch++) {
      const rows = await queryRows<{ n: number }>(
        this.db,
        `WITH gone AS (${deleteStatement} RETURNING 1) SELECT count(*)::int AS n FROM gone`,
        params,
      );
      const n = rows[0]?.n ?? 0;
      deleted += n;
      if (n < BATCH) break;
    }
    return deleted;
  }
}
