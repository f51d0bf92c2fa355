import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { AppException } from '@mm/errors';
import { REDIS, withTimeout } from '@mm/platform';

const HOUR = 3600;

/** A Redis that takes too long is treated as down: an answer must not wait on a throttle. */
const REDIS_TIMEOUT_MS = 500;

/** One count of a throttle: its Redis key and how many attempts it admits per hour (0: off). */
export interface ThrottleBucket {
  key: string;
  max: number;
}

/**
 * KEYS: the buckets' counters, then (optional, when ARGV[2] is '1') the "already admitted" marker.
 * ARGV: window in seconds, marker flag, then each bucket's max.
 * Returns {1} when admitted, {0, seconds until the longest full counter starts over} when refused.
 * One script, so parallel attempts cannot get past a limit, and a refused attempt counts nowhere.
 */
const CONSUME_LUA = `
local window = tonumber(ARGV[1])
local marked = ARGV[2] == '1'
local n = #KEYS
if marked then
  n = n - 1
  if redis.call('EXISTS', KEYS[#KEYS]) == 1 then return {1} end
end
local wait = 0
for i = 1, n do
  local max = tonumber(ARGV[i + 2])
  if max > 0 and tonumber(redis.call('GET', KEYS[i]) or '0') >= max then
    local ttl = redis.call('TTL', KEYS[i])
    if ttl < 1 then ttl = window end
    if ttl > wait then wait = ttl end
  end
end
if wait > 0 then return {0, wait} end
for i = 1, n do
  if tonumber(ARGV[i + 2]) > 0 then
    redis.call('INCR', KEYS[i])
    redis.call('EXPIRE', KEYS[i], window, 'NX')
  end
end
if marked then redis.call('SET', KEYS[#KEYS], '1', 'EX', window) end
return {1}
`;

type WithConsume = Redis & { orchestratorHourlyThrottle(numKeys: number, ...args: Array<string | number>): Promise<number[]> };

/**
 * Fixed one-hour windows in the orchestrator's Redis, shared by the public workflows that take a
 * phone and a secret (registration, PIN reset): every bucket must have room, or the attempt is
 * refused with 429 RATE_LIMITED and Retry-After (the seconds until the full count starts over).
 *
 * `once`: an attempt that repeats one already admitted (same idempotency key) is let through
 * without being counted again, so a client's retry is never refused for the attempt it repeats.
 *
 * Redis down or slower than 500 ms: fail open (logged). Each caller keeps a protection that does
 * not live in Redis: auth's per-code OTP attempts for PIN reset, auth's one account per phone for
 * registration; refusing every sign-up or reset because a cache is down would be an outage of its own.
 */
@Injectable()
export class HourlyThrottle {
  private readonly logger = new Logger(HourlyThrottle.name);
  private readonly redis: WithConsume;

  constructor(@Inject(REDIS) redis: Redis) {
    // Defined once per connection: ioredis then sends EVALSHA and applies the key prefix to KEYS.
    if (!('orchestratorHourlyThrottle' in redis)) redis.defineCommand('orchestratorHourlyThrottle', { lua: CONSUME_LUA });
    this.redis = redis as WithConsume;
  }

  /** Counts one attempt in every bucket, or throws RATE_LIMITED (nothing counted) when one is full. */
  async consume(what: string, buckets: ThrottleBucket[], options: { once?: { scope: string; id: string } } = {}): Promise<void> {
    const keys = buckets.map((b) => b.key);
    // The client's own value never becomes a Redis key as such: its digest does (bounded length).
    if (options.once) keys.push(`${options.once.scope}:${createHash('sha256').update(options.once.id).digest('hex')}`);
    let reply: number[];
    try {
      reply = await withTimeout(
        this.redis.orchestratorHourlyThrottle(keys.length, ...keys, HOUR, options.once ? '1' : '0', ...buckets.map((b) => b.max)),
        REDIS_TIMEOUT_MS,
        'Redis',
      );
    } catch (error) {
      this.logger.warn({ msg: `${what} throttle unavailable: attempt allowed (fail open)`, err: error });
      return;
    }
    if (Number(reply[0]) === 1) return;
    const retryAfter = Math.max(1, Number(reply[1]));
    throw new AppException('RATE_LIMITED', `Too many ${what} attempts; retry in ${retryAfter} s`, {
      headers: { 'retry-after': String(retryAfter) },
    });
  }
}
