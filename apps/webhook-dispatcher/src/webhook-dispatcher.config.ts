import { IsBoolean, IsInt, IsString, Matches, Max, Min, MinLength, ValidateIf } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { DEFAULT_DATABASE_NAME, SERVICES } from '@mm/contracts';
import { ConfigRule, DatabaseConfig, EnvBoolean, MAX_INTERVAL_MS } from '@mm/platform';

export class WebhookDispatcherConfig extends DatabaseConfig {
  override PORT = SERVICES['webhook-dispatcher'].port;
  override DATABASE_URL = `postgres://${SERVICES['webhook-dispatcher'].role}@127.0.0.1:5432/${DEFAULT_DATABASE_NAME}`;

  /** 32 bytes, base64: encrypts webhook secrets at rest (AES-256-GCM). Required outside development. */
  @IsString()
  @ValidateIf((c: WebhookDispatcherConfig) => c.NODE_ENV !== 'development' || c.WEBHOOK_SECRET_ENCRYPTION_KEY !== '')
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'WEBHOOK_SECRET_ENCRYPTION_KEY must be 32 bytes, base64 (required outside development)' })
  WEBHOOK_SECRET_ENCRYPTION_KEY: string = '';

  /**
   * Development without WEBHOOK_SECRET_ENCRYPTION_KEY only: the file holding the key (created on
   * first boot, mode 0600; a relative path is from the working directory, the repository root under
   * `npm start`). Kept under `.data/` beside the embedded database, so secrets survive restarts.
   */
  @IsString()
  @MinLength(1)
  WEBHOOK_DEV_KEY_FILE: string = '.data/webhook-dispatcher/secret-encryption.key';

  /** Redis of the deduplication store; empty = REDIS_URL. Its own connection so it can fail on its own (fail-open). */
  @IsString()
  WEBHOOK_DEDUP_REDIS_URL: string = '';

  /** docs/partners.md "5. Webhooks": an event is dispatched at most once per 24 h. */
  @IsInt()
  @Min(1)
  WEBHOOK_DEDUP_TTL_SEC: number = 86_400;

  /** docs/partners.md "5. Webhooks": the receiver must answer within 5 s. */
  @IsInt()
  @Min(50)
  @Max(60_000)
  WEBHOOK_TIMEOUT_MS: number = 5_000;

  /** First retry delay; each next one doubles (30 s … 32 min). Tests scale it down. */
  @IsInt()
  @Min(1)
  WEBHOOK_BACKOFF_BASE_MS: number = 30_000;

  /** How long the previous secret keeps signing after a rotation (two `v1=` entries). */
  @IsInt()
  @Min(0)
  WEBHOOK_SECRET_ROTATION_OVERLAP_MS: number = 86_400_000;

  /** An endpoint failing without a single success for this long is disabled (default 3 days). */
  @IsInt()
  @Min(1)
  WEBHOOK_ENDPOINT_DISABLE_AFTER_MS: number = 3 * 86_400_000;

  /** Deliveries in flight per process (I/O bound). */
  @IsInt()
  @Min(1)
  @Max(512)
  WEBHOOK_WORKER_CONCURRENCY: number = 32;

  /**
   * How long a delivery job stays locked to the process running it without a renewal. When that
   * process dies (crash, kill -9) its jobs go back to the queue within about twice this time.
   */
  @IsInt()
  @Min(500)
  @Max(300_000)
  WEBHOOK_JOB_LOCK_MS: number = 30_000;

  /**
   * How long the dispatcher waits for Redis to take a job (a resend, a replay, the internal enqueue
   * route, the pending sweep). The producer queue does not buffer commands while Redis is away, so a
   * job refused by a connection that is down answers at once with 503 WEBHOOK_QUEUE_UNAVAILABLE
   * (nothing queued). When this deadline fires instead, the add may still be on its way to Redis
   * and run later: the answer is 503 WEBHOOK_QUEUE_UNCONFIRMED and a resend's event stays pending.
   */
  @IsInt()
  @Min(100)
  @Max(60_000)
  WEBHOOK_ENQUEUE_TIMEOUT_MS: number = 5_000;

  /**
   * Every this often each dispatcher looks for events left 'pending' with no job to run them (Redis
   * lost it): it queues them again, or marks them failed when BullMQ had given up on their job.
   * 0 turns the timed sweep off. At most 2^31 − 1 ms (about 24.8 days): Node runs a longer timer
   * after 1 ms instead, which would make the sweep a busy loop.
   */
  @IsInt()
  @Min(0)
  @Max(MAX_INTERVAL_MS)
  WEBHOOK_PENDING_SWEEP_INTERVAL_MS: number = 5 * 60_000;

  /**
   * An event is a sweep candidate once it has been 'pending' without any change for this long. Keep
   * it above the whole retry schedule (127 × WEBHOOK_BACKOFF_BASE_MS, about 64 min by default, plus
   * the attempts' timeouts), or the sweep spends Redis lookups on events whose retries are simply
   * waiting. It must be above WEBHOOK_ENQUEUE_TIMEOUT_MS (refused at boot otherwise): the sweep sees
   * a job as missing while a resend's add is still unconfirmed, and would queue the event a second
   * time when that add lands after all. Even above it, an add held up on the network for longer than
   * this age can still land after the sweep re-queued its event: one more delivery of the same
   * Svc-Event-Id, which receivers deduplicate.
   */
  @IsInt()
  @Min(100)
  @ConfigRule<WebhookDispatcherConfig>('aboveEnqueueTimeout', (value, config) =>
    typeof value === 'number' && value <= config.WEBHOOK_ENQUEUE_TIMEOUT_MS
      ? `must be greater than WEBHOOK_ENQUEUE_TIMEOUT_MS (${config.WEBHOOK_ENQUEUE_TIMEOUT_MS}): a shorter age re-queues events whose resend Redis may still take`
      : undefined,
  )
  WEBHOOK_PENDING_SWEEP_AGE_MS: number = 2 * 3_600_000;

  /**
   * Most events one resend-undelivered call queues (it answers `truncated: true` when the window
   * holds more), and the page size of the replay that follows a re-enable.
   */
  @IsInt()
  @Min(1)
  @Max(10_000)
  WEBHOOK_RESEND_BATCH_MAX: number = 1_000;

  /** Only read in production, where endpoint URLs must be https unless this is true. */
  @EnvBoolean()
  @IsBoolean()
  WEBHOOK_ALLOW_HTTP_URLS: boolean = false;

  /**
   * Lets endpoint URLs point at loopback addresses (127.0.0.0/8, ::1), for receivers on the
   * developer's machine and in tests. Unset: on in development and test, off in production, where
   * true is refused at boot. Every other internal range (private, link-local, metadata …) stays
   * refused in every mode.
   */
  @OptionalField()
  @EnvBoolean()
  @IsBoolean()
  // A loopback receiver in production would be an SSRF hole by configuration: refused at boot.
  @ConfigRule<WebhookDispatcherConfig>('notInProduction', (value, config) =>
    value === true && config.NODE_ENV === 'production'
      ? "cannot be true when NODE_ENV=production (webhooks would reach this host's own services)"
      : undefined,
  )
  WEBHOOK_ALLOW_LOOPBACK_URLS?: boolean;
}

/** Whether webhook endpoints may resolve to loopback addresses (see WEBHOOK_ALLOW_LOOPBACK_URLS). */
export function allowsLoopbackReceivers(config: WebhookDispatcherConfig): boolean {
  return config.WEBHOOK_ALLOW_LOOPBACK_URLS ?? config.NODE_ENV !== 'production';
}
