import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { MetricsService } from '@mm/platform';
import { throttledWarning } from '../common/throttled-warning';
import { WebhookDispatcherConfig } from '../webhook-dispatcher.config';

export type ClaimResult = 'claimed' | 'duplicate' | 'unavailable';

/**
 * docs/partners.md "5. Webhooks": an event is dispatched at most once per 24 h. `SET key token NX GET` claims the
 * event id for one delivery run; the same run (a retry, or a stalled job picked up again) finds its
 * own token and goes on, another run finds a foreign token and stops. The store has its own
 * connection (WEBHOOK_DEDUP_REDIS_URL) and is fail-open: when it cannot answer, delivery goes on
 * (duplicates become possible), a warning is logged and a counter is incremented.
 */
@Injectable()
export class DedupStore implements OnApplicationShutdown {
  private readonly logger = new Logger(DedupStore.name);
  private readonly redis: Redis;
  private readonly unavailable;

  constructor(
    private readonly config: WebhookDispatcherConfig,
    metrics: MetricsService,
  ) {
    this.unavailable = metrics.counter(
      'webhook_dedup_unavailable_total',
      'Dispatches that went on without the deduplication store (unreachable)',
    );
    this.redis = new Redis(config.WEBHOOK_DEDUP_REDIS_URL || config.REDIS_URL, {
      keyPrefix: `${config.REDIS_PREFIX}:webhooks:dedup:`,
      // Fail fast rather than hold a delivery while the store is away.
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      connectTimeout: 1_000,
      commandTimeout: 1_000,
      retryStrategy: (times) => Math.min(times * 200, 2_000),
    });
    // One line per 30 s while it stays down; each skipped claim is logged on its own.
    this.redis.on('error', throttledWarning(this.logger, 'deduplication store connection error'));
  }

  async claim(eventId: string, token: string): Promise<ClaimResult> {
    try {
      const previous = await this.redis.set(eventId, token, 'EX', this.config.WEBHOOK_DEDUP_TTL_SEC, 'NX', 'GET');
      return previous === null || previous === token ? 'claimed' : 'duplicate';
    } catch (error) {
      this.unavailable.inc();
      this.logger.warn({
        msg: 'deduplication store unavailable: dispatching without deduplication',
        eventId,
        err: { message: (error as Error).message },
      });
      return 'unavailable';
    }
  }

  async onApplicationShutdown(): Promise<void> {
    // quit() needs a live connection; while the store is away only disconnect() stops the reconnect loop.
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }
}
