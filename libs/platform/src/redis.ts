import type { ConnectionOptions, RedisOptions as BullRedisOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import type { BaseConfig } from './config';

export const REDIS = Symbol('REDIS');

/**
 * A Redis client whose keys all live under the app's REDIS_PREFIX. Commands fail fast while the
 * server is unreachable instead of queueing forever, so callers can degrade (fail-open dedup,
 * health "down") rather than hang.
 */
export function createRedis(config: BaseConfig, options: RedisOptions = {}): Redis {
  return new Redis(config.REDIS_URL, {
    keyPrefix: `${config.REDIS_PREFIX}:`,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
    lazyConnect: false,
    ...options,
  });
}

/**
 * Connection options for BullMQ queues and workers: BullMQ needs `maxRetriesPerRequest: null`
 * and namespaces keys itself through its `prefix` option (see `bullPrefix`).
 */
export function bullConnection(config: BaseConfig): BullRedisOptions & ConnectionOptions {
  const url = new URL(config.REDIS_URL);
  return {
    url: config.REDIS_URL,
    host: url.hostname,
    port: Number(url.port || 6379),
    username: url.username || undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
    maxRetriesPerRequest: null,
  };
}

export function bullPrefix(config: BaseConfig): string {
  return `${config.REDIS_PREFIX}:bull`;
}

/** `connection` + `prefix` for a BullMQ queue or worker: the app's Redis and its namespace. */
export function bullOptions(config: BaseConfig): { connection: ConnectionOptions; prefix: string } {
  return { connection: bullConnection(config), prefix: bullPrefix(config) };
}
