import type { ConnectionOptions } from 'bullmq';
import { type BaseConfig, bullConnection, bullPrefix } from '@mm/platform';

/**
 * `connection` + `prefix` for every queue and worker of this app. The cast bridges a typing gap
 * only: ioredis 6 types `retryStrategy` as possibly null, BullMQ 6's RedisOptions does not; the
 * value bullConnection builds has no retryStrategy at all.
 */
export function bullOptions(config: BaseConfig): { connection: ConnectionOptions; prefix: string } {
  return { connection: bullConnection(config) as ConnectionOptions, prefix: bullPrefix(config) };
}
