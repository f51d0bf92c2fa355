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
}

const key = (token: string): string => `auth:sf-challenge:${createHash('sha256').update(token, 'utf8').digest('base64url')}`;

/**
 * The second-step challenges, in Redis: the token is random (256 bits) and only its SHA-256 names
 * the key, which expires after SECOND_FACTOR_CHALLENGE_TTL_SEC. A challenge is used up by the one
 * request that deletes it (`consume`), so it opens at most one session.
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
    await this.redis.set(key(token), JSON.stringify(challenge), 'EX', ttl);
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
}
