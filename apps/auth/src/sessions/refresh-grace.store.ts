import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, withTimeout } from '@mm/platform';
import { AuthConfig } from '../auth.config';
import type { TokenPair } from './token-pair';

/** What is kept of an issued pair: the rest (type, seconds left) is derived when it is answered again. */
interface StoredPair {
  token: string;
  refreshToken: string;
  expiresAt: string;
}

const VERSION = 'g1';

/** Both calls run inside a refresh's transaction, holding the token's row lock: never wait long. */
const REDIS_TIMEOUT_MS = 500;

/**
 * The pair a refresh issued, kept for REFRESH_GRACE_SEC so that the same refresh retried (its
 * answer was lost) gets the same pair back. Sealed with AES-256-GCM under a key derived from the
 * refresh token that was presented, which is stored nowhere (the database keeps only its
 * SHA-256): whoever reads Redis learns nothing usable, and only a holder of that refresh token, who
 * could have refreshed anyway, can open it. Redis expiry ends the window; the session service also
 * checks the time of use in the database.
 */
@Injectable()
export class RefreshGraceStore {
  private readonly logger = new Logger(RefreshGraceStore.name);

  constructor(
    @Inject(AuthConfig) private readonly config: AuthConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  get enabled(): boolean {
    return this.config.REFRESH_GRACE_SEC > 0;
  }

  /** Best effort: without Redis the retry finds nothing and is treated as a reuse, as before the grace existed. */
  async save(presented: string, pair: TokenPair): Promise<void> {
    if (!this.enabled) return;
    const stored: StoredPair = { token: pair.token, refreshToken: pair.refreshToken, expiresAt: pair.expiresAt };
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', sealingKey(presented), iv);
    cipher.setAAD(Buffer.from(VERSION));
    const body = Buffer.concat([cipher.update(JSON.stringify(stored), 'utf8'), cipher.final()]);
    const sealed = `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    try {
      await withTimeout(this.redis.set(graceKey(presented), sealed, 'PX', this.config.REFRESH_GRACE_SEC * 1000), REDIS_TIMEOUT_MS, 'Redis');
    } catch (error) {
      this.logger.warn({ msg: 'could not keep the refreshed pair for its grace window: a retry will count as reuse', err: error });
    }
  }

  /** The pair issued for this presented token, if still kept and readable. */
  async load(presented: string): Promise<StoredPair | undefined> {
    if (!this.enabled) return undefined;
    let sealed: string | null;
    try {
      sealed = await withTimeout(this.redis.get(graceKey(presented)), REDIS_TIMEOUT_MS, 'Redis');
    } catch (error) {
      this.logger.warn({ msg: 'could not read the grace window of a refresh: treated as reuse', err: error });
      return undefined;
    }
    if (!sealed?.startsWith(`${VERSION}.`)) return undefined;
    try {
      const raw = Buffer.from(sealed.slice(VERSION.length + 1), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', sealingKey(presented), raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(VERSION));
      decipher.setAuthTag(raw.subarray(12, 28));
      const plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      return JSON.parse(plain) as StoredPair;
    } catch {
      return undefined;
    }
  }
}

/** The Redis key names the presented token only by a digest (as the database does). */
function graceKey(presented: string): string {
  return `auth:refresh-grace:${createHash('sha256').update(presented, 'utf8').digest('base64url')}`;
}

function sealingKey(presented: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(presented, 'utf8'), Buffer.alloc(0), 'mm-auth refresh grace', 32));
}
