import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { IssuedApiKey, RotatedWebhookSecret } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { CONFIG, REDIS } from '@mm/platform';
import type { OrchestratorConfig } from '../../orchestrator.config';

/** How long an issued key waits for its maker to collect it; then only its hint remains (revoke it and ask again). */
export const COLLECT_TTL_SECONDS = 86_400;

/** What the execution recorded without the secret: answers a repeated execution after a crash. */
export interface IssuedKeyRecord {
  keyId: string;
  mode: IssuedApiKey['mode'];
  hint: string;
  collectBefore: string;
}

/** What a webhook secret rotation's execution recorded without the secret. */
export interface RotatedSecretRecord {
  mode: RotatedWebhookSecret['mode'];
  previousSecretExpiresAt: string | null;
  collectBefore: string;
}

const secretKey = (requestId: string) => `partner-key:secret:${requestId}`;
const recordKey = (requestId: string) => `partner-key:issued:${requestId}`;
const webhookSecretKey = (requestId: string) => `webhook-secret:secret:${requestId}`;
const webhookRecordKey = (requestId: string) => `webhook-secret:rotated:${requestId}`;

/**
 * The one place an issued partner API key, or a new webhook signing secret, exists between its
 * approval and its collection: Redis, encrypted (AES-256-GCM under a key derived from the
 * orchestrator's service key, bound to the approval id), for COLLECT_TTL_SECONDS, and read once
 * (GETDEL). The approval record, the audit trail and the logs only ever see the key's id and hint
 * (or, for a secret, its mode and when the previous one stops signing).
 */
@Injectable()
export class KeyCollectionStore {
  private readonly key: Buffer;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(CONFIG) config: OrchestratorConfig,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', config.INTERNAL_SERVICE_KEY, 'mm-orchestrator', 'partner-key-collection:v1', 32));
  }

  async recorded(requestId: string): Promise<IssuedKeyRecord | null> {
    const raw = await this.redis.get(recordKey(requestId));
    return raw ? (JSON.parse(raw) as IssuedKeyRecord) : null;
  }

  /** Keeps the issued key for its maker; answers what the approval's result may show. */
  async keep(requestId: string, issued: IssuedApiKey): Promise<IssuedKeyRecord> {
    const record: IssuedKeyRecord = { keyId: issued.id, mode: issued.mode, hint: issued.hint, collectBefore: collectBefore() };
    await this.store(secretKey(requestId), recordKey(requestId), requestId, issued, record);
    return record;
  }

  /**
   * The issued key, once: the first call takes it out of Redis, every later one gets null. A box
   * this process cannot open (the service key changed since it was sealed) is gone too: 404
   * PARTNER_KEY_NOT_COLLECTABLE (revoke the key and ask again), not a 500.
   */
  async collect(requestId: string): Promise<IssuedApiKey | null> {
    return this.take<IssuedApiKey>(secretKey(requestId), requestId, 'PARTNER_KEY_NOT_COLLECTABLE');
  }

  async recordedSecret(requestId: string): Promise<RotatedSecretRecord | null> {
    const raw = await this.redis.get(webhookRecordKey(requestId));
    return raw ? (JSON.parse(raw) as RotatedSecretRecord) : null;
  }

  /** Keeps a new webhook signing secret for the maker of its rotation, as `keep` does a key. */
  async keepSecret(requestId: string, rotated: RotatedWebhookSecret): Promise<RotatedSecretRecord> {
    const record: RotatedSecretRecord = {
      mode: rotated.mode,
      previousSecretExpiresAt: rotated.previousSecretExpiresAt,
      collectBefore: collectBefore(),
    };
    await this.store(webhookSecretKey(requestId), webhookRecordKey(requestId), requestId, rotated, record);
    return record;
  }

  /** The new webhook secret, once (404 WEBHOOK_SECRET_NOT_COLLECTABLE when its box cannot be opened). */
  async collectSecret(requestId: string): Promise<RotatedWebhookSecret | null> {
    return this.take<RotatedWebhookSecret>(webhookSecretKey(requestId), requestId, 'WEBHOOK_SECRET_NOT_COLLECTABLE');
  }

  /** Seals `secret` under the request id and writes it with its public `record`, both for COLLECT_TTL_SECONDS. */
  private async store(boxKey: string, recordAt: string, requestId: string, secret: object, record: object): Promise<void> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(requestId));
    const sealed = Buffer.concat([cipher.update(JSON.stringify(secret), 'utf8'), cipher.final()]);
    const box = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
    const replies = await this.redis
      .multi()
      .set(boxKey, box, 'EX', COLLECT_TTL_SECONDS)
      .set(recordAt, JSON.stringify(record), 'EX', COLLECT_TTL_SECONDS)
      .exec();
    // A refused write must fail the execution (the engine runs it again), never answer a secret nobody can collect.
    const refused = replies?.find(([error]) => error)?.[0] ?? (replies ? null : new Error('Redis discarded the transaction'));
    if (refused) throw refused;
  }

  /** Takes a box out of Redis (GETDEL) and opens it; null when there is none. */
  private async take<T>(
    boxKey: string,
    requestId: string,
    unreadable: 'PARTNER_KEY_NOT_COLLECTABLE' | 'WEBHOOK_SECRET_NOT_COLLECTABLE',
  ): Promise<T | null> {
    const box = await this.redis.getdel(boxKey);
    if (!box) return null;
    try {
      const raw = Buffer.from(box, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(requestId));
      decipher.setAuthTag(raw.subarray(12, 28));
      const clear = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      return JSON.parse(clear) as T;
    } catch {
      throw new AppException(unreadable, 'It was sealed under another service key and cannot be opened: ask for a new one');
    }
  }
}

const collectBefore = () => new Date(Date.now() + COLLECT_TTL_SECONDS * 1000).toISOString();
