import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS } from '@mm/platform';

/**
 * Sliding-window counters in Redis: one sorted set per user and per device, members are operation
 * ids scored by their start time. Adding with NX makes a retried create count once.
 */
@Injectable()
export class VelocityService {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  /** Records the operation under each key and returns how many operations each key holds in the window (this one included). */
  async hit(keys: string[], operationId: string, windowSeconds: number, nowMs = Date.now()): Promise<number[]> {
    const windowMs = windowSeconds * 1000;
    const multi = this.redis.multi();
    for (const key of keys) {
      multi
        .zremrangebyscore(key, '-inf', nowMs - windowMs)
        .zadd(key, 'NX', nowMs, operationId)
        .zcard(key)
        .pexpire(key, windowMs);
    }
    const results = await multi.exec();
    if (!results) throw new Error('velocity transaction aborted');
    return keys.map((_, i) => {
      const [error, count] = results[i * 4 + 2];
      if (error) throw error;
      return Number(count);
    });
  }
}

export const velocityKey = {
  party: (kind: string, id: string) => `risk:velocity:${kind.toLowerCase()}:${id}`,
  device: (deviceId: string) => `risk:velocity:device:${deviceId}`,
};
