import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { Counter } from 'prom-client';
import { MetricsService, REDIS, withTimeout } from '@mm/platform';

/** One fixed-window counter: at most `limit` attempts per `windowMs`, counted under `key`. */
export interface Bucket {
  key: string;
  limit: number;
  windowMs: number;
  /** what the bucket counts, for metrics and logs (`phone`, `ip`) */
  dimension: string;
}

export type Decision = { allowed: true } | { allowed: false; retryAfterMs: number; dimension: string };

/**
 * Checks every bucket and, only if none is full, counts the attempt in all of them, in one atomic
 * round trip. A refused attempt counts nowhere, so an address that is refused does not also use up
 * the phone's budget (and the other way round). A window starts with the first attempt counted in
 * it and ends PEXPIRE later (fixed window; at its edge a client may get up to twice the limit in
 * one window's time, which is the accepted price of one counter per bucket).
 * Returns {1} or {0, ms until the longest full bucket reopens, its index (1-based)}.
 */
const CONSUME_LUA = `
local worst, worstAt = 0, 0
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[2 * i - 1])
  if tonumber(redis.call('GET', key) or '0') >= limit then
    local ttl = redis.call('PTTL', key)
    if ttl < 0 then
      redis.call('PEXPIRE', key, ARGV[2 * i])
      ttl = tonumber(ARGV[2 * i])
    end
    if ttl > worst then worst, worstAt = ttl, i end
  end
end
if worstAt > 0 then return {0, worst, worstAt} end
for i, key in ipairs(KEYS) do
  redis.call('INCR', key)
  if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[2 * i]) end
end
return {1}
`;

/** A Redis that takes too long is treated as down: an answer must not wait on a limiter. */
const REDIS_TIMEOUT_MS = 500;

/** At most one "limiter unavailable" warning per this many ms, so an outage does not flood the log. */
const WARN_EVERY_MS = 30_000;

type WithConsume = Redis & { authRateLimitConsume(numKeys: number, ...args: Array<string | number>): Promise<number[]> };

/**
 * Fixed-window rate limiting in the service's Redis (keys under its REDIS_PREFIX, so test files and
 * benchmarks stay apart). Fails open: when Redis is unreachable or slow the attempt is allowed and
 * a warning logged, because the per-account PIN lockout and the OTP attempt limits, which live in
 * PostgreSQL, still hold; refusing every login during a Redis outage would be an outage of its own.
 */
@Injectable()
export class RateLimiter {
  private readonly logger = new Logger(RateLimiter.name);
  private readonly redis: WithConsume;
  private readonly refused: Counter<'policy' | 'dimension'>;
  private readonly unavailable: Counter<'policy'>;
  private lastWarnAt = 0;
  private unwarned = 0;

  constructor(@Inject(REDIS) redis: Redis, metrics: MetricsService) {
    // Defined once per connection: ioredis then sends EVALSHA and falls back to EVAL, and applies
    // the connection's key prefix to KEYS.
    if (!('authRateLimitConsume' in redis)) redis.defineCommand('authRateLimitConsume', { lua: CONSUME_LUA });
    this.redis = redis as WithConsume;
    this.refused = metrics.counter('auth_rate_limited_total', 'Attempts refused with RATE_LIMITED, by policy and bucket', [
      'policy',
      'dimension',
    ]);
    this.unavailable = metrics.counter('auth_rate_limit_unavailable_total', 'Attempts let through because Redis could not be asked', [
      'policy',
    ]);
  }

  async consume(policy: string, buckets: Bucket[]): Promise<Decision> {
    const live = buckets.filter((b) => b.limit > 0);
    if (live.length === 0) return { allowed: true };
    let reply: number[];
    try {
      reply = await withTimeout(
        this.redis.authRateLimitConsume(live.length, ...live.map((b) => b.key), ...live.flatMap((b) => [b.limit, b.windowMs])),
        REDIS_TIMEOUT_MS,
        'Redis',
      );
    } catch (error) {
      this.unavailable.inc({ policy });
      this.warnUnavailable(policy, error);
      return { allowed: true };
    }
    if (Number(reply[0]) === 1) return { allowed: true };
    const dimension = live[Number(reply[2]) - 1]?.dimension ?? 'unknown';
    this.refused.inc({ policy, dimension });
    return { allowed: false, retryAfterMs: Math.max(1, Number(reply[1])), dimension };
  }

  private warnUnavailable(policy: string, error: unknown): void {
    const now = Date.now();
    if (now - this.lastWarnAt < WARN_EVERY_MS) {
      this.unwarned++;
      return;
    }
    this.logger.warn({
      msg: 'rate limiter unavailable: attempt allowed (fail open)',
      policy,
      err: error,
      alsoAllowedSinceLastWarning: this.unwarned,
    });
    this.lastWarnAt = now;
    this.unwarned = 0;
  }
}
