import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { DEFAULT_DATABASE_NAME, SERVICES } from '@mm/contracts';
import { DatabaseConfig, EnvBoolean } from '@mm/platform';

export class LedgerWalletsConfig extends DatabaseConfig {
  override PORT = SERVICES['ledger-wallets'].port;
  override DATABASE_URL = `postgres://${SERVICES['ledger-wallets'].role}@127.0.0.1:5432/${DEFAULT_DATABASE_NAME}`;

  /** Three-letter platform prefix of `transactions.reference_id` (spec 2: PPPTXYYMMDDxxxxxxx). */
  @Matches(/^[A-Z]{3}$/, { message: 'LEDGER_REFERENCE_PREFIX must be three capital letters' })
  LEDGER_REFERENCE_PREFIX: string = 'MMP';

  /** Intent lifetime (spec 2: 10 minutes by default). */
  @IsInt()
  @Min(1)
  LEDGER_INTENT_TTL_SECONDS: number = 600;

  /** How often the expiry sweeper looks for stale intents; 0 disables the timer (on-demand only). */
  @IsInt()
  @Min(0)
  LEDGER_EXPIRY_SWEEP_INTERVAL_MS: number = 30_000;

  /** Lock wait inside the money transaction (spec 2: 3 s), also the cap on waiting for account locks. */
  @IsInt()
  @Min(10)
  LEDGER_LOCK_TIMEOUT_MS: number = 3_000;

  /** Waits before replaying a transaction after 40001 / 55P03 / 40P01 (spec 2: 100, 400, 1600 ms). */
  @Matches(/^\d+(,\d+)*$/, { message: 'LEDGER_RETRY_DELAYS_MS must be a comma-separated list of integers' })
  LEDGER_RETRY_DELAYS_MS: string = '100,400,1600';

  /** Validity of a stored idempotency key (spec 2: 48 hours). */
  @IsInt()
  @Min(1)
  LEDGER_IDEMPOTENCY_TTL_HOURS: number = 48;

  /** Daily time (UTC, HH:MM) of the integrity check (spec 2: 02:00). */
  @Matches(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'LEDGER_INTEGRITY_TIME_UTC must be HH:MM' })
  LEDGER_INTEGRITY_TIME_UTC: string = '02:00';

  /** Run the integrity check on its daily schedule (it stays runnable on demand either way). */
  @EnvBoolean()
  @IsBoolean()
  LEDGER_INTEGRITY_SCHEDULE_ENABLED: boolean = true;

  /** Compliance channel webhook that receives an alert when the integrity check finds a gap. */
  @IsOptional()
  @IsString()
  LEDGER_INTEGRITY_ALERT_URL?: string;

  /** Outbox relay poll interval; 0 disables the relay. */
  @IsInt()
  @Min(0)
  LEDGER_OUTBOX_POLL_MS: number = 500;

  /** Rows the relay publishes per poll. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  LEDGER_OUTBOX_BATCH_SIZE: number = 100;
}

export function retryDelays(config: LedgerWalletsConfig): number[] {
  return config.LEDGER_RETRY_DELAYS_MS.split(',').map(Number);
}
