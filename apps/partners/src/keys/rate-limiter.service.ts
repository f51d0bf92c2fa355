import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { MetricsService, REDIS } from '@mm/platform';
import { PartnersConfig } from '../partners.config';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** milliseconds until the oldest counted request leaves the window */
  resetMs: number;
}

/**
 * Sliding-window log: every accepted request of a key is a member of a sorted set scored by its
 * time (Redis' clock, so every replica agrees); members older than the window are dropped before
 * counting. Refused requests are not counted, so a client that backs off gets through as soon as
 * the window has room. One script, one round trip, atomic.
 */
const SLIDING_WINDOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, now .. '-' .. ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  count = count + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = window
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return {allowed, count, reset}
`;

@Injectable()
export class RateLimiter {
  private readonly logger = new Logger(RateLimiter.name);
  private readonly unavailable;
  private readonly limited;
  private lastWarning = 0;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly config: PartnersConfig,
    metrics: MetricsService,
  ) {
    this.unavailable = metrics.counter('partners_rate_limit_unavailable_total', 'Requests let through because Redis could not count them');
    this.limited = metrics.counter('partners_rate_limited_total', 'Requests refused with 429 RATE_LIMITED');
  }

  /**
   * Counts one request of `keyId`. Fail-open: when Redis cannot answer, the request goes through
   * (a warning and a counter record it) — an outage of the counter must not stop partners' sales.
   */
  async hit(keyId: string): Promise<RateDecision> {
    const limit = this.config.PARTNERS_RATE_LIMIT_MAX;
    const windowMs = this.config.PARTNERS_RATE_LIMIT_WINDOW_SEC * 1000;
    try {
      const [allowed, count, reset] = (await this.redis.eval(
        SLIDING_WINDOW,
        1,
        `partners:rl:${keyId}`,
        windowMs,
        limit,
        randomBytes(6).toString('hex'),
      )) as [number, number, number];
      if (allowed !== 1) this.limited.inc();
      return { allowed: allowed === 1, limit, remaining: Math.max(0, limit - count), resetMs: Math.max(0, reset) };
    } catch (error) {
      this.unavailable.inc();
      if (Date.now() - this.lastWarning > 30_000) {
        this.lastWarning = Date.now();
        this.logger.warn({ msg: 'rate limiter unavailable: requests are not being limited', err: { message: (error as Error).message } });
      }
      return { allowed: true, limit, remaining: limit, resetMs: windowMs };
    }
  }
}
