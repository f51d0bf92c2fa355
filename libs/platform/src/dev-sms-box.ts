import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** One message of the development SMS box. */
export interface DevSms {
  to: string;
  text: string;
  at: string;
}

/** Messages kept per phone (newest first); older ones are dropped. */
export const DEV_SMS_KEEP_PER_PHONE = 50;

/** A phone's box is forgotten this long after its last message. */
export const DEV_SMS_KEEP_SEC = 3600;

/**
 * The development drivers' SMS box (auth's codes, the orchestrator's notifications), kept in the
 * service's Redis rather than in the memory of the process that sent the message: with several
 * replicas behind the gateway, the replica asked for a phone's messages is usually not the one that
 * sent them. `namespace` keeps two services that share one REDIS_PREFIX apart. Bounded per phone
 * (DEV_SMS_KEEP_PER_PHONE) and in time (DEV_SMS_KEEP_SEC); the phone is named in the key by its
 * digest only. Never used in production (the dev drivers are refused there).
 */
export class DevSmsBox {
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
  ) {}

  async keep(to: string, text: string): Promise<void> {
    const key = this.key(to);
    const message: DevSms = { to, text, at: new Date().toISOString() };
    const results = await this.redis
      .multi()
      .lpush(key, JSON.stringify(message))
      .ltrim(key, 0, DEV_SMS_KEEP_PER_PHONE - 1)
      .expire(key, DEV_SMS_KEEP_SEC)
      .exec();
    const failed = results?.find(([error]) => error)?.[0];
    if (!results || failed) throw failed ?? new Error('dev SMS box: the transaction was discarded');
  }

  /** The messages of one phone, newest first: there is deliberately no way to read them all. */
  async list(to: string): Promise<DevSms[]> {
    const raw = await this.redis.lrange(this.key(to), 0, -1);
    return raw.map((item) => JSON.parse(item) as DevSms).filter((m) => m.to === to);
  }

  private key(to: string): string {
    return `${this.namespace}:dev-sms:${createHash('sha256').update(to).digest('base64url')}`;
  }
}
