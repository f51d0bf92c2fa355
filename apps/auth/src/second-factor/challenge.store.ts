import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS } from '@mm/platform';
import { AuthConfig } from '../auth.config';

/** What a challenge remembers between a staff login's two steps. */
export interface Challenge {
  userId: string;
  /** enrolment: the new secret, sealed for this user (TotpSecretBox); absent when the user is enrolled */
  pendingSecret?: string;
  /**
   * When the first step's PIN check was reserved (ISO, the database's clock): a PIN replaced after it
   * lets the challenge open no session. Absent on challenges issued before it was kept.
   */
  pinCheckedAt?: string;
}

const key = (token: string): string => `auth:sf-challenge:${createHash('sha256').update(token, 'utf8').digest('base64url')}`;
/** The keys of a user's open challenges (a set, expiring with the newest of them). */
const userKey = (userId: string): string => `auth:sf-challenges:user:${userId}`;

/**
 * The second-step challenges, in Redis: the token is random (256 bits) and only its SHA-256 names
 * the key, which expires after SECOND_FACTOR_CHALLENGE_TTL_SEC. A challenge is used up by the one
 * request that deletes it (`consume`), so it opens at most one session. Each user's open challenges
 * are listed too, so that ending the user's sessions ends them with it (`revokeForUser`).
 */
@Injectable()
export class ChallengeStore {
  constructor(
    @Inject(AuthConfig) private readonly config: AuthConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async create(challenge: Challenge): Promise<{ token: string; expiresAt: Date }> {
    const token = `sfc1.${randomBytes(32).toString('base64url')}`;
    const ttl = this.config.SECOND_FACTOR_CHALLENGE_TTL_SEC;
    const owner = userKey(challenge.userId);
    await this.redis.multi().set(key(token), JSON.stringify(challenge), 'EX', ttl).sadd(owner, key(token)).expire(owner, ttl).exec();
    return { token, expiresAt: new Date(Date.now() + ttl * 1000) };
  }

  async peek(token: string): Promise<Challenge | undefined> {
    const raw = await this.redis.get(key(token));
    return raw ? (JSON.parse(raw) as Challenge) : undefined;
  }

  /** True for the one caller that used the challenge up. */
  async consume(token: string): Promise<boolean> {
    return (await this.redis.del(key(token))) === 1;
  }

  /**
   * Deletes every open challenge of the user (their sessions were ended, their second factor reset):
   * a challenge issued before cannot open a session after. The list is first renamed away in one
   * step, so a challenge issued meanwhile lands in a new list and is not lost half-way. The number
   * of challenges deleted.
   */
  async revokeForUser(userId: string): Promise<number> {
    const taken = `${userKey(userId)}:ending:${randomBytes(8).toString('hex')}`;
    try {
      await this.redis.rename(userKey(userId), taken);
    } catch (error) {
      if (/no such key/i.test((error as Error).message)) return 0;
      throw error;
    }
    const keys = await this.redis.smembers(taken);
    const deleted = keys.length > 0 ? await this.redis.del(...keys) : 0;
    await this.redis.del(taken);
    return deleted;
  }
}
