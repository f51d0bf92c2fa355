import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { DataSource, type EntityManager } from 'typeorm';
import type { SessionRevokeReason } from '@mm/contracts';
import { AppException, type ErrorCode } from '@mm/errors';
import { REDIS } from '@mm/platform';
import { AuthConfig } from '../auth.config';
import type { Role } from '../common/roles';
import { queryRows } from '@mm/platform';
import { RELAXED_COMMIT } from '../common/sql';
import { RefreshGraceStore } from './refresh-grace.store';
import { ChallengeStore } from '../second-factor/challenge.store';
import { type TokenPair, tokenPair } from './token-pair';

export type RevokeReason = SessionRevokeReason;

/** The longest User-Agent kept with a session (the column's limit). */
const USER_AGENT_MAX = 300;

/** Redis marker of a revoked session, kept as long as an access token of it could live. */
export const revokedSessionKey = (sessionId: string): string => `auth:revoked-session:${sessionId}`;

/** A rotated session and the refresh token that replaces the presented one. */
export interface Rotated {
  sessionId: string;
  userId: string;
  roles: Role[];
  refreshToken: string;
}

export interface ActiveSession {
  sessionId: string;
  userId: string;
  roles: Role[];
  status: 'ACTIVE' | 'DISABLED';
}

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

function newRefreshToken(): string {
  return `rt1.${randomBytes(32).toString('base64url')}`;
}

/**
 * Sessions and their refresh-token family. A refresh token is single-use: refreshing marks it used
 * and issues the next one; presenting a used one again means it was stolen (or replayed), so the
 * whole session is revoked. Only SHA-256 digests of refresh tokens are stored.
 */
@Injectable()
export class SessionService {
  private readonly logger = new Logger(SessionService.name);

  constructor(
    @Inject(AuthConfig) private readonly config: AuthConfig,
    private readonly db: DataSource,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly grace: RefreshGraceStore,
    private readonly challenges: ChallengeStore,
  ) {}

  /**
   * A session and the first refresh token of its family. `staff`: the session lasts
   * STAFF_SESSION_TTL_SEC instead of REFRESH_TOKEN_TTL_SEC. With `pinCheckedAt` (when the PIN check that
   * opens it was reserved), only while the account's PIN has not been replaced since: the user's row
   * is read FOR SHARE, so a replacement in progress (LocalUserStore.markPinSet, which holds the row
   * until the sessions it ends are ended) is waited for and then refuses this one, and a replacement
   * that comes after this session is made ends it. Undefined when refused.
   */
  async create(
    userId: string,
    options: { staff?: boolean; userAgent?: string; pinCheckedAt?: Date } = {},
  ): Promise<{ sessionId: string; refreshToken: string } | undefined> {
    const sessionId = randomUUID();
    const refreshToken = newRefreshToken();
    const ttl = options.staff ? this.config.STAFF_SESSION_TTL_SEC : this.config.REFRESH_TOKEN_TTL_SEC;
    const userAgent = options.userAgent ? options.userAgent.slice(0, USER_AGENT_MAX) : null;
    // One statement: the session and the first token of its family. Relaxed commit: a session lost
    // with a crashed database only fails closed (its tokens are refused; the user logs in again).
    const rows = await queryRows<{ session_id: string }>(
      this.db,
      `WITH u AS (
         SELECT id FROM auth.users
          WHERE id = $2 AND ($6::timestamptz IS NULL OR pin_set_at IS NULL OR pin_set_at < $6::timestamptz)
          FOR SHARE
       ),
       s AS (
         INSERT INTO auth.sessions (id, user_id, expires_at, user_agent)
         SELECT $1, u.id, now() + make_interval(secs => $3), $5 FROM u
         RETURNING id, expires_at
       )
       INSERT INTO auth.refresh_tokens (token_hash, session_id, expires_at) SELECT $4, s.id, s.expires_at FROM s, ${RELAXED_COMMIT}
       RETURNING session_id`,
      [sessionId, userId, ttl, hashToken(refreshToken), userAgent, options.pinCheckedAt ?? null],
    );
    return rows.length > 0 ? { sessionId, refreshToken } : undefined;
  }

  /**
   * Rotates a refresh token: marks it used, stores its successor and answers the pair `mint` makes
   * for the successor. `expectedUserId` (from an access token sent along, if any) must own it.
   *
   * A used token presented again is a reuse (stolen or replayed): the session is revoked and the
   * answer is REFRESH_TOKEN_REUSED; except within REFRESH_GRACE_SEC of its use while its successor
   * is still unused, where the pair its use issued is answered again (the client's retry after a
   * lost answer). Everything happens under the lock of the token and its session, and the pair is
   * kept before the rotation commits, so two refreshes racing with one token get the same pair.
   */
  async rotate(
    refreshToken: string,
    expectedUserId: string | undefined,
    mint: (rotated: Rotated) => Promise<TokenPair>,
  ): Promise<TokenPair> {
    const outcome = await this.db.transaction(async (m): Promise<{ error: ErrorCode; revokedSession?: string } | { pair: TokenPair }> => {
      const rows = await queryRows<{
        session_id: string;
        used_at: Date | null;
        in_grace: boolean | null;
        expires_at: Date;
        user_id: string;
        revoked_at: Date | null;
        s_expires: Date;
        roles: Role[];
        status: string;
      }>(
        m,
        // clock_timestamp(), not now(): the row may have waited on the lock of a concurrent use.
        `SELECT rt.session_id, rt.used_at, rt.used_at > clock_timestamp() - make_interval(secs => $2) AS in_grace,
                rt.expires_at, s.user_id, s.revoked_at, s.expires_at AS s_expires, u.roles, u.status
           FROM auth.refresh_tokens rt
           JOIN auth.sessions s ON s.id = rt.session_id
           JOIN auth.users u ON u.id = s.user_id
          WHERE rt.token_hash = $1
          FOR UPDATE OF rt, s`,
        [hashToken(refreshToken), this.config.REFRESH_GRACE_SEC],
      );
      const row = rows[0];
      if (!row || (expectedUserId !== undefined && row.user_id !== expectedUserId)) return { error: 'TOKEN_INVALID' };
      if (row.revoked_at) return { error: 'TOKEN_REVOKED' };
      const replay = row.used_at && row.in_grace ? await this.graceReplay(m, refreshToken, row.session_id) : undefined;
      if (row.used_at && !replay) {
        await this.revokeWith(m, row.session_id, 'REFRESH_REUSE');
        return { error: 'REFRESH_TOKEN_REUSED', revokedSession: row.session_id };
      }
      if (row.expires_at.getTime() <= Date.now() || row.s_expires.getTime() <= Date.now()) return { error: 'TOKEN_EXPIRED' };
      if (row.status !== 'ACTIVE') return { error: 'ACCOUNT_DISABLED' };
      if (replay) return { pair: replay };
      await queryRows(m, `UPDATE auth.refresh_tokens SET used_at = now() WHERE token_hash = $1`, [hashToken(refreshToken)]);
      await queryRows(m, `UPDATE auth.sessions SET last_used_at = now() WHERE id = $1`, [row.session_id]);
      const next = newRefreshToken();
      await this.insertRefreshToken(m, row.session_id, next);
      const pair = await mint({ sessionId: row.session_id, userId: row.user_id, roles: row.roles, refreshToken: next });
      // Before the commit: a concurrent refresh with the same token waits on our lock and then finds it.
      await this.grace.save(refreshToken, pair);
      return { pair };
    });
    if ('error' in outcome) {
      if (outcome.revokedSession) {
        await this.markRevoked([outcome.revokedSession]);
        this.logger.warn({ msg: 'refresh token reuse detected: session revoked', sessionId: outcome.revokedSession });
      }
      throw new AppException(outcome.error);
    }
    return outcome.pair;
  }

  /**
   * The pair the first use of `presented` issued, if it is still kept and its refresh token is still
   * unused. Read under the session's lock, which every rotation takes: a use of the successor has
   * either committed before (the client got that pair, so this is a reuse) or waits for us.
   */
  private async graceReplay(m: EntityManager, presented: string, sessionId: string): Promise<TokenPair | undefined> {
    const kept = await this.grace.load(presented);
    if (!kept) return undefined;
    const successor = await queryRows<{ used_at: Date | null }>(
      m,
      `SELECT used_at FROM auth.refresh_tokens WHERE token_hash = $1 AND session_id = $2`,
      [hashToken(kept.refreshToken), sessionId],
    );
    if (!successor[0] || successor[0].used_at) return undefined;
    this.logger.log({ msg: 'refresh retried within the grace window: same pair answered', sessionId });
    return tokenPair(kept.token, kept.refreshToken, new Date(kept.expiresAt));
  }

  /** The session behind an access token, if it is still live (checked on every authenticated call). */
  async active(sessionId: string, userId: string): Promise<ActiveSession> {
    const rows = await queryRows<{ revoked_at: Date | null; expires_at: Date; roles: Role[]; status: 'ACTIVE' | 'DISABLED' }>(
      this.db,
      `SELECT s.revoked_at, s.expires_at, u.roles, u.status FROM auth.sessions s JOIN auth.users u ON u.id = s.user_id WHERE s.id = $1 AND s.user_id = $2`,
      [sessionId, userId],
    );
    const row = rows[0];
    if (!row || row.revoked_at || row.expires_at.getTime() <= Date.now()) throw new AppException('TOKEN_REVOKED');
    if (row.status !== 'ACTIVE') throw new AppException('ACCOUNT_DISABLED');
    return { sessionId, userId, roles: row.roles, status: row.status };
  }

  async revoke(sessionId: string, reason: RevokeReason): Promise<void> {
    await this.revokeWith(this.db, sessionId, reason);
    await this.markRevoked([sessionId]);
  }

  /**
   * Every live session of a user (but `keep`), e.g. after a PIN change or reset. `note`: the
   * operator's words when an operator ends them. The user's open second-factor challenges end too
   * (even with `keep`): a challenge is a session about to open.
   */
  async revokeAllForUser(
    userId: string,
    reason: RevokeReason,
    keep?: string,
    manager: EntityManager | DataSource = this.db,
    note?: string,
  ): Promise<string[]> {
    const rows = await queryRows<{ id: string }>(
      manager,
      `UPDATE auth.sessions SET revoked_at = now(), revoke_reason = $2, revoke_note = $4
        WHERE user_id = $1 AND revoked_at IS NULL AND ($3::uuid IS NULL OR id <> $3::uuid) RETURNING id`,
      [userId, reason, keep ?? null, note ?? null],
    );
    const ids = rows.map((r) => r.id);
    await this.markRevoked(ids);
    await this.challenges.revokeForUser(userId);
    return ids;
  }

  private async revokeWith(m: EntityManager | DataSource, sessionId: string, reason: RevokeReason): Promise<void> {
    await queryRows(m, `UPDATE auth.sessions SET revoked_at = now(), revoke_reason = $2 WHERE id = $1 AND revoked_at IS NULL`, [
      sessionId,
      reason,
    ]);
  }

  private async insertRefreshToken(m: EntityManager, sessionId: string, token: string): Promise<void> {
    await queryRows(
      m,
      `INSERT INTO auth.refresh_tokens (token_hash, session_id, expires_at) SELECT $1, $2, expires_at FROM auth.sessions WHERE id = $2`,
      [hashToken(token), sessionId],
    );
  }

  /**
   * Publishes revocations to Redis for services that check access tokens without calling us
   * (`EXISTS <prefix>:auth:revoked-session:<sid>`). Best effort: the database stays the truth
   * and `/auth/me` and `/auth/internal/introspect` read it.
   */
  private async markRevoked(sessionIds: string[]): Promise<void> {
    if (sessionIds.length === 0) return;
    try {
      const pipeline = this.redis.pipeline();
      for (const id of sessionIds) pipeline.set(revokedSessionKey(id), '1', 'EX', this.config.ACCESS_TOKEN_TTL_SEC + 60);
      await pipeline.exec();
    } catch (error) {
      this.logger.warn({ msg: 'could not publish session revocation to Redis', err: error, sessions: sessionIds.length });
    }
  }
}
