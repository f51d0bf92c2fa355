import { IsBoolean, IsInt, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';
import { DEFAULT_DATABASE_NAME, SERVICES } from '@mm/contracts';
import { DatabaseConfig, EnvBoolean } from '@mm/platform';

export class WebhookDispatcherConfig extends DatabaseConfig {
  override PORT = SERVICES['webhook-dispatcher'].port;
  override DATABASE_URL = `postgres://${SERVICES['webhook-dispatcher'].role}@127.0.0.1:5432/${DEFAULT_DATABASE_NAME}`;

  /** 32 bytes, base64: encrypts webhook secrets at rest (AES-256-GCM). Required outside development. */
  @IsString()
  @ValidateIf((c: WebhookDispatcherConfig) => c.NODE_ENV !== 'development' || c.WEBHOOK_SECRET_ENCRYPTION_KEY !== '')
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'WEBHOOK_SECRET_ENCRYPTION_KEY must be 32 bytes, base64 (required outside development)' })
  WEBHOOK_SECRET_ENCRYPTION_KEY: string = '';

  /** Redis of the deduplication store; empty = REDIS_URL. Its own connection so it can fail on its own (fail-open). */
  @IsString()
  WEBHOOK_DEDUP_REDIS_URL: string = '';

  /** Spec 1: an event is dispatched at most once per 24 h. */
  @IsInt()
  @Min(1)
  WEBHOOK_DEDUP_TTL_SEC: number = 86_400;

  /** Spec 1: the receiver must answer within 5 s. */
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

  /** Only read in production, where endpoint URLs must be https unless this is true. */
  @EnvBoolean()
  @IsBoolean()
  WEBHOOK_ALLOW_HTTP_URLS: boolean = false;
}
