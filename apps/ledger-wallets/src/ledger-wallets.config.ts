import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsString, IsUrl, Matches, Max, Min, MinLength } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { AUTH_JWKS_PATH, AUTH_TOKEN_ISSUER, DEFAULT_AUTH_URL, DEFAULT_DATABASE_NAME, SERVICES } from '@mm/contracts';
import { DatabaseConfig, EnvBoolean, type JwksLocation, type UpstreamUrls, UpstreamsField } from '@mm/platform';

export class LedgerWalletsConfig extends DatabaseConfig {
  override PORT = SERVICES['ledger-wallets'].port;
  override DATABASE_URL = `postgres://${SERVICES['ledger-wallets'].role}@127.0.0.1:5432/${DEFAULT_DATABASE_NAME}`;

  /**
   * At least 2 here (the platform allows 1): the session gate (db/session-gate.ts) admits
   * DB_POOL_SIZE − 1 requests and keeps one connection for /health and for the reads an admitted
   * session makes. With a single connection the one admitted session would hold it, and its own
   * reads would wait on the pool for that very connection until the pool's timeout.
   */
  @Min(2, { message: 'DB_POOL_SIZE must be at least 2 for the ledger: one connection stays outside the session gate' })
  override DB_POOL_SIZE: number = 10;

  /** Three-letter platform prefix of `transactions.reference_id` (docs/ledger.md "Transactions and entries": PPPTXYYMMDDxxxxxxx). */
  @Matches(/^[A-Z]{3}$/, { message: 'LEDGER_REFERENCE_PREFIX must be three capital letters' })
  LEDGER_REFERENCE_PREFIX: string = 'MMP';

  /** Intent lifetime (docs/ledger.md "Intents": 10 minutes by default). */
  @IsInt()
  @Min(1)
  LEDGER_INTENT_TTL_SECONDS: number = 600;

  /** How often the expiry sweeper looks for stale intents; 0 disables the timer (on-demand only). */
  @IsInt()
  @Min(0)
  LEDGER_EXPIRY_SWEEP_INTERVAL_MS: number = 30_000;

  /** Lock wait inside the money transaction (docs/ledger.md "Locks, isolation and retries": 3 s), also the cap on waiting for account locks. */
  @IsInt()
  @Min(10)
  LEDGER_LOCK_TIMEOUT_MS: number = 3_000;

  /**
   * Group commit beyond the hot accounts (db/group-commit.ts): at most this many transactions of
   * confirms on idle accounts run at once in this process; the confirms that arrive meanwhile wait
   * and commit together in the next free one. 0: each runs alone (only confirms queued behind a
   * busy account share a transaction).
   */
  @IsInt()
  @Min(0)
  @Max(1_000)
  LEDGER_GROUP_COMMIT_TRANSACTIONS: number = 2;

  /**
   * Overload (db/session-gate.ts): requests that may wait for a database session when all of them
   * (DB_POOL_SIZE − 1: one connection stays free for health checks and for reads made inside a
   * session) are busy. One more is refused at once with 503 SERVICE_UNAVAILABLE and Retry-After,
   * before touching the database.
   */
  @IsInt()
  @Min(0)
  LEDGER_SESSION_QUEUE_LIMIT: number = 500;

  /**
   * Longest wait for a database session before the request is refused (503, Retry-After, nothing
   * done). Below the orchestrator's LEDGER_TIMEOUT_MS (5 s), so that its caller gets that clear
   * refusal rather than a timeout with an unknown outcome.
   */
  @IsInt()
  @Min(1)
  LEDGER_SESSION_WAIT_MS: number = 3_000;

  /**
   * The largest commission one operation may pay an agent (smallest unit), whoever sends the
   * execution context: a confirm above it, or above the operation's amount, is refused with 422
   * COMMISSION_OUT_OF_RANGE. The default leaves ten times the room of the default grids' largest
   * commission (0.5 % of a 2 000 000 cash-in).
   */
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  LEDGER_COMMISSION_MAX_PER_OPERATION: number = 100_000;

  /** Waits before replaying a transaction after 40001 / 55P03 / 40P01 (docs/ledger.md "Locks, isolation and retries": 100, 400, 1600 ms). */
  @Matches(/^\d+(,\d+)*$/, { message: 'LEDGER_RETRY_DELAYS_MS must be a comma-separated list of integers' })
  LEDGER_RETRY_DELAYS_MS: string = '100,400,1600';

  /** Validity of a stored idempotency key (docs/ledger.md "Idempotency": 48 hours). */
  @IsInt()
  @Min(1)
  LEDGER_IDEMPOTENCY_TTL_HOURS: number = 48;

  /** Daily time (UTC, HH:MM) of the integrity check (docs/ledger.md "Audit and the integrity job": 02:00). */
  @Matches(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'LEDGER_INTEGRITY_TIME_UTC must be HH:MM' })
  LEDGER_INTEGRITY_TIME_UTC: string = '02:00';

  /** Run the integrity check on its daily schedule (it stays runnable on demand either way). */
  @EnvBoolean()
  @IsBoolean()
  LEDGER_INTEGRITY_SCHEDULE_ENABLED: boolean = true;

  /** Compliance channel webhook that receives an alert when the integrity check finds a gap. */
  @OptionalField()
  @IsString()
  LEDGER_INTEGRITY_ALERT_URL?: string;

  /**
   * Signs the ledger chain's anchors (HMAC-SHA256, docs/ledger-chain.md): the database stores them but
   * never sees this key, so a rewritten history cannot be re-anchored. Required in production (the
   * ledger refuses to boot without it: assertLedgerProductionConfig); elsewhere a fixed development
   * key. When it changes, the old key goes to LEDGER_CHAIN_ANCHOR_RETIRED_KEYS, or the anchors it
   * signed fail the verification.
   */
  @OptionalField()
  @IsString()
  @MinLength(32, { message: 'LEDGER_CHAIN_ANCHOR_KEY must be at least 32 characters' })
  LEDGER_CHAIN_ANCHOR_KEY?: string;

  /**
   * Keys that signed earlier anchors, kept to verify them after LEDGER_CHAIN_ANCHOR_KEY changed; never
   * used to sign. Comma-separated `keyId:key`, the key id being the one the anchors record (the first
   * 8 hex digits of the key's sha256; the ledger refuses to boot on an id that does not match its key).
   */
  @OptionalField()
  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : value))
  @Matches(/^[0-9a-f]{8}:[^,]{32,}(,[0-9a-f]{8}:[^,]{32,})*$/, {
    message: 'LEDGER_CHAIN_ANCHOR_RETIRED_KEYS must be comma-separated keyId:key pairs (8 hex digits, a key of at least 32 characters)',
  })
  LEDGER_CHAIN_ANCHOR_RETIRED_KEYS?: string;

  /** How often the chain heads are anchored (one replica at a time, only when a head moved); 0: never by timer. */
  @IsInt()
  @Min(0)
  LEDGER_CHAIN_ANCHOR_INTERVAL_MS: number = 300_000;

  /** Outbox relay poll interval; 0 disables the relay. */
  @IsInt()
  @Min(0)
  LEDGER_OUTBOX_POLL_MS: number = 500;

  /** Rows the relay reads per query, and the events of one `ledger-events` job (at most 1,000: a job is one Redis value). */
  @IsInt()
  @Min(1)
  @Max(1_000)
  LEDGER_OUTBOX_BATCH_SIZE: number = 100;

  /**
   * Publish each batch of rows as one `ledger-events.batch` job (true), or each row as its own
   * `transaction.completed` job as ledgers before batching did (false). Batch jobs are read only by
   * partners from the same release on: while an older partners replica still consumes the queue,
   * keep this false (an older consumer completes a batch job without applying its events).
   */
  @EnvBoolean()
  @IsBoolean()
  LEDGER_OUTBOX_BATCH_JOBS: boolean = true;

  /**
   * How often the relay's second loop hands outbox rows to `monitoring-events` (its own cursor,
   * `monitoring_published_at`: it never holds back `ledger-events`); 0 turns only that loop off
   * (LEDGER_OUTBOX_POLL_MS=0 turns both off). Monitoring is not in a hurry: fewer, fuller batches.
   */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  LEDGER_MONITORING_POLL_MS: number = 2_000;

  /**
   * Unfinished jobs (waiting, delayed, active) `monitoring-events` may hold before the relay stops
   * adding: Redis evicts nothing, so a monitoring worker down for hours must not fill it. Rows wait
   * in `ledger.outbox` meanwhile and follow once the worker catches up (docs/monitoring.md, "The feed").
   */
  @IsInt()
  @Min(1)
  LEDGER_MONITORING_BACKLOG_MAX_JOBS: number = 5_000;

  // --- consent proofs (docs/ledger.md "Consent proofs"): PIN_VERIFIED / OTP_VERIFIED need a proof signed by auth ---
  /** Auth's base URL; its key set verifies consent proofs (fetched once, cached, refetched on an unknown key id). */
  @UpstreamsField()
  AUTH_URL: UpstreamUrls = [DEFAULT_AUTH_URL];

  /** Where auth's key set is, when not at the usual path under AUTH_URL. Empty: unset (compose passes "" then). */
  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : value))
  @OptionalField()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  LEDGER_CONSENT_JWKS_URL?: string;

  /** The `iss` auth signs with (auth's JWT_ISSUER). */
  @IsString()
  @MinLength(1)
  LEDGER_CONSENT_ISSUER: string = AUTH_TOKEN_ISSUER;

  // --- corrections under maker-checker (docs/ledger-corrections.md); read through CorrectionsSettings ---
  /** Roles allowed to submit a correction and to place or lift a hold (comma-separated). */
  @Matches(/^[A-Z_]+(,[A-Z_]+)*$/, { message: 'LEDGER_CORRECTION_MAKER_ROLES must be comma-separated role names' })
  LEDGER_CORRECTION_MAKER_ROLES: string = 'COMPLIANCE,ADMIN';

  /** Roles allowed to approve or reject a correction (transactions.approve). */
  @Matches(/^[A-Z_]+(,[A-Z_]+)*$/, { message: 'LEDGER_CORRECTION_APPROVER_ROLES must be comma-separated role names' })
  LEDGER_CORRECTION_APPROVER_ROLES: string = 'COMPLIANCE,ADMIN';

  /** Compliance officers: the only approvers of a correction above the limit. */
  @Matches(/^[A-Z_]+(,[A-Z_]+)*$/, { message: 'LEDGER_CORRECTION_COMPLIANCE_ROLES must be comma-separated role names' })
  LEDGER_CORRECTION_COMPLIANCE_ROLES: string = 'COMPLIANCE';

  /** Above this amount (smallest unit) a correction needs a compliance officer's approval. */
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  LEDGER_CORRECTION_COMPLIANCE_LIMIT: number = 1_000_000;

  /** Compliance channel webhook for executed corrections; unset or empty: LEDGER_INTEGRITY_ALERT_URL. */
  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : value))
  @OptionalField()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  LEDGER_COMPLIANCE_ALERT_URL?: string;

  /** `aud` of auth's access tokens (auth's JWT_AUDIENCE): operator identities. */
  @IsString()
  @MinLength(1)
  LEDGER_OPERATOR_TOKEN_AUDIENCE: string = 'mm-platform';

  /** The legacy add/subtract as the test-funding flow. Unset: on in NODE_ENV=test only; always off in production. */
  @OptionalField()
  @EnvBoolean()
  @IsBoolean()
  LEDGER_TEST_FUNDING_ENABLED?: boolean;

  // --- float reconciliation against the trust bank account (docs/reconciliation.md) ---
  /**
   * The trust (escrow) bank accounts whose statements are reconciled, as CURRENCY:ACCOUNT pairs
   * separated by commas (`XAF:CM2110005000010123456789012,XOF:SN08SN0100152000048500003035`); the
   * account is the IBAN (or the bank's other account id) without spaces, optionally followed by
   * `@±HH:MM`, the UTC offset of the days the bank books in (default +01:00, West Africa Time; a
   * bank in Senegal or Côte d'Ivoire books in +00:00). Empty: no trust account, every statement is
   * refused with BANK_ACCOUNT_NOT_TRUST_ACCOUNT.
   */
  @Matches(/^([A-Z]{3}:[A-Z0-9]{5,34}(@[+-](0\d|1[0-4]):[0-5]\d)?(,[A-Z]{3}:[A-Z0-9]{5,34}(@[+-](0\d|1[0-4]):[0-5]\d)?)*)?$/, {
    message:
      'LEDGER_TRUST_ACCOUNTS must be CURRENCY:ACCOUNT pairs separated by commas, each optionally followed by @±HH:MM, the bank day offset (XAF:CM21…,XOF:SN08…@+00:00)',
  })
  LEDGER_TRUST_ACCOUNTS: string = '';

  /** How many days apart a bank line and a platform float movement may be dated and still match one another. */
  @IsInt()
  @Min(0)
  @Max(31)
  RECON_DATE_TOLERANCE_DAYS: number = 2;

  // --- settlement statements (docs/statements.md) ---
  /**
   * A statement's period is final this long after its end. It must exceed the longest time between
   * the instant an entry is stamped and its commit: a confirm is stamped when it is planned, before
   * its locks, and keeps that stamp through four lock waits (LEDGER_LOCK_TIMEOUT_MS, 3 s each) and
   * the replay delays between them (2.1 s + 25 % jitter), about 15 s, plus its turn in a group
   * commit. Five minutes leaves a wide margin. It is also how far before a period's start the
   * statement looks for entries applied inside the period but stamped just before it.
   */
  @IsInt()
  @Min(60_000)
  LEDGER_STATEMENT_FINAL_AFTER_MS: number = 300_000;

  /** How far back a statement's period may start, in days: an older one is refused (SETTLEMENT_PERIOD_TOO_OLD). */
  @IsInt()
  @Min(1)
  @Max(3_660)
  LEDGER_STATEMENT_MAX_AGE_DAYS: number = 400;

  /** The most ledger entries one statement lists; a busier period is refused (SETTLEMENT_STATEMENT_TOO_LARGE). */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  LEDGER_STATEMENT_MAX_LINES: number = 20_000;

  /**
   * Connections of the statements' own pool, outside the money path's session gate: statements never
   * take a payment's session, and at most this many run at once (one more waits up to 2 s, then 503).
   */
  @IsInt()
  @Min(1)
  @Max(20)
  LEDGER_STATEMENT_POOL_SIZE: number = 2;

  /**
   * PostgreSQL statement_timeout on that pool: a statement read running longer is cancelled and
   * answered 503 SETTLEMENT_STATEMENT_TIMEOUT. Below the orchestrator's wait for it (UPSTREAM_TIMEOUT_MS, 10 s).
   */
  @IsInt()
  @Min(100)
  LEDGER_STATEMENT_TIMEOUT_MS: number = 8_000;
}

/** Settings production must never run with: anchors signed with the development key could be forged by anyone. */
export function assertLedgerProductionConfig(config: LedgerWalletsConfig): void {
  if (config.NODE_ENV !== 'production') return;
  if (!config.LEDGER_CHAIN_ANCHOR_KEY)
    throw new Error('Invalid configuration: LEDGER_CHAIN_ANCHOR_KEY is required when NODE_ENV=production');
}

/** auth's key set: the URL set, else the usual path under AUTH_URL (under each of auth's replicas). */
export function consentJwksUrl(config: LedgerWalletsConfig): JwksLocation {
  if (config.LEDGER_CONSENT_JWKS_URL) return config.LEDGER_CONSENT_JWKS_URL;
  const urls = config.AUTH_URL.map((base) => `${base.replace(/\/+$/, '')}${AUTH_JWKS_PATH}`);
  return urls.length === 1 ? urls[0] : urls;
}

export function retryDelays(config: LedgerWalletsConfig): number[] {
  return config.LEDGER_RETRY_DELAYS_MS.split(',').map(Number);
}
