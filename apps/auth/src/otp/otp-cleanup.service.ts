import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PeriodicJob, queryRows } from '@mm/platform';
import { AuthConfig } from '../auth.config';

/** Rows deleted by one statement, and statements per run: a run deletes at most 20 000 rows. */
const BATCH = 1_000;
const BATCHES_PER_RUN = 20;

/**
 * Deletes the rows of `auth.otp_codes` whose code expired more than OTP_RETENTION_SEC ago (a code
 * is only ever consumed before it expires, so its use is older still): every send leaves one row,
 * stand-in codes included, and nothing else ever removes them. No reader needs such a row: verification looks at the live code
 * (an expired one answers OTP_EXPIRED, as no code does), the replays and the PIN reset at codes used
 * within OTP_PROOF_TTL_SEC (shorter than the retention, config rule), and "used up by wrong tries" at
 * the last code only while it has not expired. Each run deletes in bounded batches that skip rows a
 * request holds; what is left waits for the next run. The timer runs every
 * OTP_CLEANUP_INTERVAL_MS (0: never); `purge` can also be called on demand.
 */
@Injectable()
export class OtpCleanup implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OtpCleanup.name);
  private readonly job = new PeriodicJob(
    () => this.purge(),
    (error) => this.logger.error({ msg: 'OTP clean-up failed', err: error }),
  );

  constructor(
    @Inject(AuthConfig) private readonly config: AuthConfig,
    private readonly db: DataSource,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start(this.config.OTP_CLEANUP_INTERVAL_MS);
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  /** One run: deletes up to BATCH × BATCHES_PER_RUN rows past the retention; returns how many. */
  async purge(): Promise<number> {
    let deleted = 0;
    for (let batch = 0; batch < BATCHES_PER_RUN; batch++) {
      const rows = await queryRows<{ n: number }>(
        this.db,
        `WITH gone AS (
           DELETE FROM auth.otp_codes WHERE id IN (
             SELECT id FROM auth.otp_codes
              WHERE expires_at < now() - make_interval(secs => $1)
              LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
           RETURNING 1)
         SELECT count(*)::int AS n FROM gone`,
        [this.config.OTP_RETENTION_SEC],
      );
      const n = rows[0]?.n ?? 0;
      deleted += n;
      if (n < BATCH) break;
    }
    if (deleted > 0) this.logger.log({ msg: 'old OTP rows deleted', deleted, retentionSec: this.config.OTP_RETENTION_SEC });
    return deleted;
  }
}
