import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsString, IsUrl, Max, Min, MinLength, ValidateBy } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { type Currency, DEFAULT_DATABASE_NAME, SERVICES, SUPPORTED_CURRENCIES } from '@mm/contracts';
import { ConfigRule, DatabaseConfig, EnvBoolean, type UpstreamUrls, UpstreamsField } from '@mm/platform';
import { APPROVAL_ACTIONS, type ApprovalAction } from './approvals/approval-handler';
import { parseTrustedProxies, trustedProxiesProblem } from './trusted-proxies';

const local = (port: number) => `http://127.0.0.1:${port}`;
const URL_RULE = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };

export class OrchestratorConfig extends DatabaseConfig {
  override PORT = SERVICES.orchestrator.port;
  override DATABASE_URL = `postgres://${SERVICES.orchestrator.role}@127.0.0.1:5432/${DEFAULT_DATABASE_NAME}`;

  @UpstreamsField()
  AUTH_URL: UpstreamUrls = [local(SERVICES.auth.port)];

  @UpstreamsField()
  PARTNERS_URL: UpstreamUrls = [local(SERVICES.partners.port)];

  @UpstreamsField()
  LEDGER_URL: UpstreamUrls = [local(SERVICES['ledger-wallets'].port)];

  @UpstreamsField()
  WEBHOOK_DISPATCHER_URL: UpstreamUrls = [local(SERVICES['webhook-dispatcher'].port)];

  /** a proxied request with no answer after this long gets 504 UPSTREAM_TIMEOUT */
  @IsInt()
  @Min(100)
  UPSTREAM_TIMEOUT_MS: number = 10_000;

  /** per-service budget of GET /api/health */
  @IsInt()
  @Min(100)
  HEALTH_TIMEOUT_MS: number = 2_000;

  /**
   * docs/operations.md "Health": in staging and review each service's health is also reachable at `/hz/<service>`.
   * Unset: on everywhere but production.
   */
  @OptionalField()
  @EnvBoolean()
  @IsBoolean()
  HZ_ROUTES_ENABLED?: boolean;

  get hzRoutesEnabled(): boolean {
    return this.HZ_ROUTES_ENABLED ?? this.NODE_ENV !== 'production';
  }

  /**
   * The proxies in front of the public listener (an ingress controller, a load balancer) whose
   * X-Forwarded-For is believed: a comma list of addresses, CIDRs, or `loopback`, `linklocal`,
   * `uniquelocal`. The client's address (per-address limits, audit, what the gateway forwards) is then
   * the rightmost entry not added by a trusted proxy; a connection from any other address is taken at
   * its own address, the header ignored. Empty (the default): X-Forwarded-For never counts. Addresses,
   * not a hop count: Fastify 5 trusts nothing for a number, and a count would believe any direct caller.
   */
  @Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => parseTrustedProxies(obj[key]))
  @ConfigRule('trustedProxies', trustedProxiesProblem)
  TRUSTED_PROXIES: string[] = [];

  // --- access guard (access tokens issued by auth) ---
  /** must equal auth's JWT_ISSUER */
  @IsString()
  @MinLength(1)
  AUTH_JWT_ISSUER: string = 'mm-auth';

  /** must equal auth's JWT_AUDIENCE */
  @IsString()
  @MinLength(1)
  AUTH_JWT_AUDIENCE: string = 'mm-platform';

  /** how long auth's key set is trusted before it is fetched again (an unknown `kid` refetches at once) */
  @IsInt()
  @Min(1_000)
  AUTH_JWKS_CACHE_MS: number = 600_000;

  /**
   * How long a session check answered by auth's introspection is reused for the same token. Logout,
   * PIN change/reset, freeze and role change are still seen at once through auth's Redis revocation
   * marker, read on every cached use; this bound only matters if that marker was lost. 0: ask every time.
   */
  @IsInt()
  @Min(0)
  @Max(30_000)
  ACCESS_SESSION_CACHE_MS: number = 2_000;

  // --- registration workflows ---
  /** a registration run silent for this long is considered abandoned by a dead process and recovered */
  @IsInt()
  @Min(0)
  SAGA_RECOVERY_STALE_MS: number = 120_000;

  /** how often the recovery job looks for abandoned runs (it also runs once at start); 0: only at start */
  @IsInt()
  @Min(0)
  SAGA_RECOVERY_INTERVAL_MS: number = 60_000;

  /** how long a request repeating the Idempotency-Key of a running registration waits for its outcome */
  @IsInt()
  @Min(0)
  @Max(30_000)
  REGISTRATION_WAIT_MS: number = 5_000;

  /**
   * Tests only: honour the `X-Saga-Fault` header (fail, crash or fail the compensation of a chosen
   * step). Refused at boot when NODE_ENV=production.
   */
  @EnvBoolean()
  @IsBoolean()
  SAGA_FAULT_INJECTION: boolean = false;

  /** Operations alert webhook (JSON POST) for a compensation that failed; unset or empty: ERROR log only. */
  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : value))
  @OptionalField()
  @IsUrl(URL_RULE)
  OPS_ALERT_URL?: string;

  // --- PIN reset throttling (on top of auth's OTP attempt limits) ---
  @IsInt()
  @Min(1)
  PIN_RESET_MAX_PER_PHONE_PER_HOUR: number = 10;

  @IsInt()
  @Min(1)
  PIN_RESET_MAX_PER_IP_PER_HOUR: number = 30;

  // --- registration throttling (the public register routes create an account and a wallet and queue
  // a welcome SMS for any phone: without a bound, an open door to SMS pumping and mass sign-ups) ---
  /**
   * Registration runs started per phone per hour (0: off). A person registers once; the few retries a
   * refusal calls for (a weak PIN, a typo, an app retrying without an Idempotency-Key) stay well
   * under 10, while one number cannot be used to make the platform hash PINs and create and close
   * wallets without end. A retry with the same Idempotency-Key is never counted.
   */
  @IsInt()
  @Min(0)
  REGISTRATION_MAX_PER_PHONE_PER_HOUR: number = 10;

  /**
   * Registration runs started per client address per hour (0: off). The count that stops pumping:
   * each success is one SMS at our cost, so one address gets at most 50 an hour (1 200 a day)
   * instead of as many as it can send. Not lower, because many subscribers share one public address
   * behind a mobile operator's NAT, and an agent's shop may sign customers up over one connection:
   * 50 is one sign-up every 72 s for a whole hour, more than one address sees without an attack.
   */
  @IsInt()
  @Min(0)
  REGISTRATION_MAX_PER_IP_PER_HOUR: number = 50;

  // --- SMS outbox ---
  @IsIn(['dev', 'http'])
  SMS_DRIVER: 'dev' | 'http' = 'dev';

  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : value))
  @OptionalField()
  @IsUrl(URL_RULE)
  SMS_PROVIDER_URL?: string;

  @OptionalField()
  @IsString()
  SMS_PROVIDER_TOKEN?: string;

  @IsInt()
  @Min(100)
  SMS_PROVIDER_TIMEOUT_MS: number = 5_000;

  /** outbox relay poll interval; 0 disables the relay (messages stay pending) */
  @IsInt()
  @Min(0)
  SMS_RELAY_POLL_MS: number = 1_000;

  /** sends tried before a message is marked failed (backoff doubles from 5 s) */
  @IsInt()
  @Min(1)
  @Max(20)
  SMS_MAX_ATTEMPTS: number = 8;

  // --- compliance officers' audits and integrity checks (relayed to the ledger) ---
  /**
   * How long a compliance officer's account audit or integrity check waits for the ledger, in ONE
   * try (never retried: each run scans much of the ledger and is journalled there, and the ledger
   * finishes it even when nobody waits any more). Well above LEDGER_TIMEOUT_MS: an audit of a busy
   * technical account or a whole-ledger check takes seconds.
   */
  @IsInt()
  @Min(1_000)
  COMPLIANCE_LEDGER_TIMEOUT_MS: number = 120_000;

  /**
   * How often the orchestrator copies the ledger chain's newest anchor into its own database and
   * checks that the ledger still holds the last one it copied (docs/ledger-chain.md#the-witness); 0: off.
   */
  @IsInt()
  @Min(0)
  LEDGER_CHAIN_WITNESS_INTERVAL_MS: number = 60_000;

  // --- public money flow (intents) ---
  /** one ledger call waits this long before it counts as timed out (and is retried when idempotent) */
  @IsInt()
  @Min(100)
  LEDGER_TIMEOUT_MS: number = 5_000;

  /** tries of an idempotent ledger call on a timeout or 5xx, the first included */
  @IsInt()
  @Min(1)
  @Max(10)
  LEDGER_RETRY_ATTEMPTS: number = 3;

  /** wait before the second try; doubled each time */
  @IsInt()
  @Min(0)
  LEDGER_RETRY_BASE_MS: number = 200;

  /**
   * The largest commission one operation may pay an agent (smallest unit). A commission grid (or an
   * amount maximum in the limits) that could pay more is refused when it is stored, and a quote above
   * it at intent create. It must not exceed the ledger's LEDGER_COMMISSION_MAX_PER_OPERATION, which
   * refuses such a commission only at confirm, after the customer's PIN and OTP.
   */
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  COMMISSION_MAX_PER_OPERATION: number = 100_000;

  /** wrong PINs on one intent before it fails and its hold is released (auth's own lockout also counts them) */
  @IsInt()
  @Min(1)
  @Max(10)
  INTENT_MAX_PIN_ATTEMPTS: number = 3;

  /** wrong OTPs on one cash-out before it fails */
  @IsInt()
  @Min(1)
  @Max(10)
  INTENT_MAX_OTP_ATTEMPTS: number = 3;

  /** lifetime of a customer's withdrawal QR, seconds */
  @IsInt()
  @Min(30)
  @Max(900)
  WITHDRAWAL_QR_TTL_SEC: number = 120;

  /**
   * How often unfinished confirms are looked at (a success the ledger committed but this service never
   * recorded, an intent the ledger ended): 0 disables the timer.
   */
  @IsInt()
  @Min(0)
  PAYMENTS_RECONCILE_INTERVAL_MS: number = 30_000;

  /** tests only: honour the X-Payments-Fault header (e.g. drop the answer after the ledger committed); refused in production */
  @EnvBoolean()
  @IsBoolean()
  PAYMENTS_FAULT_INJECTION: boolean = false;

  // --- the maker-checker engine (approvals/, docs/approvals.md) ---

  /** seconds a request waits for a checker; after that it is EXPIRED and its reservation released */
  @IsInt()
  @Min(1)
  @Max(30 * 86_400)
  APPROVAL_TTL_SECONDS: number = 86_400;

  /** above this amount (smallest unit) only a COMPLIANCE officer may approve a request */
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  APPROVAL_COMPLIANCE_LIMIT: number = 1_000_000;

  /**
   * Actions (comma list of approval action codes) that one person may carry out alone: they are
   * recorded and executed at once. Empty (the default): every action needs four eyes. An action
   * whose handler makes four eyes mandatory (ledger money movements) is refused at start.
   */
  @Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
    const raw = obj[key];
    if (typeof raw !== 'string') return raw ?? [];
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  })
  @IsIn(APPROVAL_ACTIONS, { each: true })
  APPROVALS_ONE_PERSON_ACTIONS: ApprovalAction[] = [];

  /** how often expired requests are closed and stuck executions resumed; 0 disables the timer */
  @IsInt()
  @Min(0)
  APPROVAL_SWEEP_INTERVAL_MS: number = 60_000;

  /** a request still EXECUTING this many seconds after its approval (a crash) is executed again by the sweep */
  @IsInt()
  @Min(1)
  APPROVAL_EXECUTING_GRACE_SECONDS: number = 300;

  // --- the staff audit trail (staff-audit/, docs/staff-audit.md) ---

  /**
   * Signs the trail's anchors (HMAC-SHA256): a note of a verified (seq, hash) that the database can
   * store but never forge, since it never sees this key. Required in production; elsewhere a fixed
   * development key. Changing it makes every earlier anchor fail the check (ANCHOR_INVALID).
   */
  @OptionalField()
  @IsString()
  @MinLength(32, { message: 'STAFF_AUDIT_ANCHOR_KEY must be at least 32 characters' })
  STAFF_AUDIT_ANCHOR_KEY?: string;

  /** how often the chain is checked from the last anchor and a new anchor written (one replica at a time); 0: only on /verify */
  @IsInt()
  @Min(0)
  STAFF_AUDIT_ANCHOR_INTERVAL_MS: number = 60_000;

  // --- regulatory reports (regulatory-reports/, docs/regulatory-reports.md) ---

  /**
   * The daily threshold report lists every operation at or above this amount, per currency, in the
   * smallest unit (XAF and XOF have none below the franc): `XAF:5000000,XOF:5000000`. Every
   * supported currency must be named.
   */
  @ValidateBy({
    name: 'thresholdMap',
    validator: {
      validate: (value: unknown) => parseCurrencyAmounts(value) !== null,
      defaultMessage: () =>
        `REGULATORY_THRESHOLD_REPORT_MIN must be CURRENCY:amount pairs naming each of ${SUPPORTED_CURRENCIES.join(', ')} once (amounts 1 to 2^53 − 1)`,
    },
  })
  REGULATORY_THRESHOLD_REPORT_MIN: string = 'XAF:5000000,XOF:5000000';

  get regulatoryThresholds(): Record<Currency, number> {
    return parseCurrencyAmounts(this.REGULATORY_THRESHOLD_REPORT_MIN)!;
  }

  /** how often the job looks for yesterday's daily report and generates it when missing (one replica at a time); 0: off */
  @IsInt()
  @Min(0)
  REGULATORY_DAILY_REPORT_INTERVAL_MS: number = 900_000;

  /** how many days back, yesterday included, the job generates any daily report still missing (oldest first) */
  @IsInt()
  @Min(1)
  @Max(366)
  REGULATORY_DAILY_CATCH_UP_DAYS: number = 7;

  /**
   * A day's daily report is made only this long after the day's end (job and officer alike). The
   * ledger stamps completed_at before its commit and a confirm keeps that stamp through its lock
   * waits and replays (about 15 s at worst, docs/statements.md), so a report made at the stroke of
   * midnight could miss a payment stamped 23:59:59 that commits a moment later, and a stored report
   * never changes. Ten minutes is far above that lag.
   */
  @IsInt()
  @Min(60_000)
  @Max(21_600_000)
  REGULATORY_DAY_SETTLE_MS: number = 600_000;

  /** a suspicion report not filed (by phone or electronically) this many hours after it was made is overdue and alerted */
  @IsInt()
  @Min(1)
  @Max(168)
  REGULATORY_FILING_DUE_HOURS: number = 24;

  /**
   * The compliance channel (a chat webhook taking JSON) that overdue regulatory reports are sent to,
   * the same one the ledger's integrity and correction alerts go to; unset or empty: log and metric only.
   */
  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : value))
  @OptionalField()
  @IsUrl(URL_RULE)
  COMPLIANCE_ALERT_URL?: string;

  /** how often filed suspicion reports are checked against their 48-hour written confirmation deadline; 0: off */
  @IsInt()
  @Min(0)
  REGULATORY_DEADLINE_CHECK_INTERVAL_MS: number = 300_000;

  /** a filed suspicion report is "due soon" (listed and warned about once) this many hours before its deadline */
  @IsInt()
  @Min(1)
  @Max(47)
  REGULATORY_CONFIRMATION_DUE_SOON_HOURS: number = 12;
}

/** `XAF:5000000,XOF:5000000` as a map naming every supported currency once; null when it is not that. */
export function parseCurrencyAmounts(value: unknown): Record<Currency, number> | null {
  if (typeof value !== 'string') return null;
  const out: Partial<Record<Currency, number>> = {};
  for (const pair of value.split(',')) {
    const match = /^\s*([A-Z]{3})\s*:\s*([1-9][0-9]{0,15})\s*$/.exec(pair);
    if (!match || !(SUPPORTED_CURRENCIES as readonly string[]).includes(match[1]) || match[1] in out) return null;
    const amount = Number(match[2]);
    if (!Number.isSafeInteger(amount)) return null;
    out[match[1] as Currency] = amount;
  }
  return SUPPORTED_CURRENCIES.every((c) => c in out) ? (out as Record<Currency, number>) : null;
}

/** Settings production must never run with. */
export function assertOrchestratorProductionConfig(config: OrchestratorConfig): void {
  if (config.NODE_ENV !== 'production') return;
  const wrong: string[] = [];
  if (config.SAGA_FAULT_INJECTION) wrong.push('SAGA_FAULT_INJECTION must be false');
  if (config.SMS_DRIVER !== 'http') wrong.push('SMS_DRIVER must be http');
  if (config.SMS_DRIVER === 'http' && !config.SMS_PROVIDER_URL) wrong.push('SMS_PROVIDER_URL is required');
  if (!config.STAFF_AUDIT_ANCHOR_KEY) wrong.push('STAFF_AUDIT_ANCHOR_KEY is required');
  if (wrong.length > 0) throw new Error(`Invalid configuration: ${wrong.join('; ')}`);
}
