import { IsInt, IsString, Max, Min, MinLength, ValidateIf } from 'class-validator';
import { DEFAULT_DATABASE_NAME, SERVICES } from '@mm/contracts';
import { DatabaseConfig, type UpstreamUrls, UpstreamsField } from '@mm/platform';

const local = (port: number) => `http://127.0.0.1:${port}`;

export class PartnersConfig extends DatabaseConfig {
  override PORT = SERVICES['partners'].port;
  override DATABASE_URL = `postgres://${SERVICES['partners'].role}@127.0.0.1:5432/${DEFAULT_DATABASE_NAME}`;

  /**
   * The orchestrator's internal listener (its PORT + 100), where the merchant directory lives
   * (phone → merchant, merchant → ledger accounts); never its public port.
   */
  @UpstreamsField()
  ORCHESTRATOR_URL: UpstreamUrls = [local(SERVICES.orchestrator.port + 100)];

  /** The dispatcher's internal endpoint API (webhook URL and secret of each integration). */
  @UpstreamsField()
  WEBHOOK_DISPATCHER_URL: UpstreamUrls = [local(SERVICES['webhook-dispatcher'].port)];

  /** Budget of one internal call (directory, dispatcher). */
  @IsInt()
  @Min(100)
  PARTNERS_UPSTREAM_TIMEOUT_MS: number = 5_000;

  /** How long a merchant has to answer a connection request before it expires (7 days). */
  @IsInt()
  @Min(60)
  PARTNERS_CONNECTION_PENDING_TTL_SEC: number = 7 * 86_400;

  /**
   * A connection request is answered no sooner than this after it arrived, whether or not the phone
   * belongs to a merchant: the directory's own work differs slightly between the two cases, and
   * the floor keeps that difference out of the response time (anti-enumeration).
   */
  @IsInt()
  @Min(0)
  @Max(5_000)
  PARTNERS_CONNECTION_REQUEST_MIN_MS: number = 100;

  /**
   * After `expiresAt` an order's QR still resolves, but with `payable: false`, so no new payment
   * starts; the order itself turns `expired` (and `order.expired` is sent) only this much later, so
   * a payment already under way completes as paid. Such a payment must commit within the first
   * half (the QR resolution's `payBy`, which ends the paying intent): the second half is for the
   * ledger's event to reach partners before the sweep.
   */
  @IsInt()
  @Min(0)
  @Max(3_600)
  PARTNERS_ORDER_EXPIRY_GRACE_SEC: number = 60;

  /** How often the sweeper expires pending connections and orders (0 disables the timer). */
  @IsInt()
  @Min(0)
  PARTNERS_SWEEP_INTERVAL_MS: number = 5_000;

  /** How often the event relay looks for events not yet handed to the dispatcher (0 disables the timer). */
  @IsInt()
  @Min(0)
  PARTNERS_OUTBOX_POLL_MS: number = 1_000;

  /** Requests one API key may make per window (sliding window in Redis). */
  @IsInt()
  @Min(1)
  PARTNERS_RATE_LIMIT_MAX: number = 600;

  @IsInt()
  @Min(1)
  @Max(3_600)
  PARTNERS_RATE_LIMIT_WINDOW_SEC: number = 60;

  /** Default overlap of a rotated API key (the old key keeps working this long), 24 h. */
  @IsInt()
  @Min(0)
  @Max(30 * 86_400)
  PARTNERS_KEY_ROTATION_OVERLAP_SEC: number = 86_400;

  /** How long an Idempotency-Key of order creation is remembered (24 h). */
  @IsInt()
  @Min(60)
  PARTNERS_IDEMPOTENCY_TTL_SEC: number = 86_400;

  /** How far back GET /partners-public/events reaches (30 days). */
  @IsInt()
  @Min(1)
  @Max(365)
  PARTNERS_EVENTS_WINDOW_DAYS: number = 30;

  /** How long a merchant's directory entry (status, accounts) is reused by order creation. */
  @IsInt()
  @Min(0)
  PARTNERS_DIRECTORY_CACHE_MS: number = 30_000;

  /**
   * Key of the merchant pseudonyms (the merchantId a connection request for an unknown phone gets).
   * A secret of its own, so rotating the service credential never changes a pseudonym. Required
   * outside development; a development boot without it uses a per-boot key and warns.
   */
  @IsString()
  @ValidateIf((c: PartnersConfig) => c.NODE_ENV !== 'development' || c.PARTNERS_PSEUDONYM_SECRET !== '')
  @MinLength(32, { message: 'PARTNERS_PSEUDONYM_SECRET must be at least 32 characters (required outside development)' })
  PARTNERS_PSEUDONYM_SECRET: string = '';

  /**
   * Ledger events applied at once by this replica, across all the `ledger-events` jobs it runs (a
   * job is a relay batch of up to LEDGER_OUTBOX_BATCH_SIZE events); also how many jobs it takes at once.
   */
  @IsInt()
  @Min(1)
  @Max(256)
  PARTNERS_LEDGER_EVENTS_CONCURRENCY: number = 16;

  /**
   * Lock on a `ledger-events` job being applied (renewed while it runs; a job is a batch of events).
   * When a replica dies mid-job, the job is handed to another worker once this lapses, so it bounds
   * the delay of the order.paid events of that batch.
   */
  @IsInt()
  @Min(500)
  @Max(300_000)
  PARTNERS_LEDGER_EVENTS_LOCK_MS: number = 10_000;
}
