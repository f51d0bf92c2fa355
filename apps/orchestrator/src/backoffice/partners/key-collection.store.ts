import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { IssuedApiKey } from '@mm/contracts';
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

const secretKey = (requestId: string) => `partner-key:secret:${requestId}`;
const recordKey = (requestId: string) => `partner-key:issued:${requestId}`;

/**
 * The one place an issued partner API key exists in clear between its approval and its collection:
 * Redis, encrypted (AES-256-GCM under a key derived from the orchestrator's service key, bound to
 * the approval id), for COLLECT_TTL_SECONDS, and read once (GETDEL). The approval record, the audit
 * trail and the logs only ever see the key's id and hint.
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
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(requestId));
    const sealed = Buffer.concat([cipher.update(JSON.stringify(issued), 'utf8'), cipher.final()]);
    const box = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
    const record: IssuedKeyRecord = {
      keyId: issued.id,
      mode: issued.mode,
      hint: issued.hint,
      collectBefore: new Date(Date.now() + COLLECT_TTL_SECONDS * 1000).toISOString(),
    };
    const replies = await this.redis
      .multi()
      .set(secretKey(requestId), box, 'EX', COLLECT_TTL_SECONDS)
      .set(recordKey(requestId), JSON.stringify(record), 'EX', COLLECT_TTL_SECONDS)
      .exec();
    // A refused write must fail the execution (the engine runs it again), never answer a key nobody can collect.
    const refused = replies?.find(([error]) => error)?.[0] ?? (replies ? null : new Error('Redis discarded the transaction'));
    if (refused) throw refused;
    return record;
  }

  /** The issued key, once: the first call takes it out of Redis, every later one gets null. */
  async collect(requestId: string): Promise<IssuedApiKey | null> {
    const box = await this.redis.getdel(secretKey(requestId));
    if (!box) return null;
    const raw = Buffer.from(box, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(requestId));
    decipher.setAuthTag(raw.subarray(12, 28));
    const clear = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    return JSON.parse(clear) as IssuedApiKey;
  }
}
