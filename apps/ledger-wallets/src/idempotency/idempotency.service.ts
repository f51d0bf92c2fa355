import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { DbSession } from '../db/db-session';
import { stringLockKey } from '../db/lock-keys';
import { sqlState } from '../db/sql-errors';
import { LedgerDb } from '../db/ledger-db.service';
import { LedgerWalletsConfig } from '../ledger-wallets.config';

export interface IdempotentResponse<T> {
  status: number;
  body: T;
  /** true when this answer is the stored one of an earlier request */
  replayed: boolean;
}

/** Stores the response inside the operation's own transaction (atomic with its effects). */
export type RecordResponse = (session: DbSession, status: number, body: unknown) => Promise<void>;

/**
 * Spec 2 idempotency rules 3 to 6, reusable by every endpoint that takes a key. Requests sharing
 * a (scope, key) are serialized by an advisory lock on the key, so a duplicate that arrives while
 * the first is still running waits for it and then answers with its stored response: a key can
 * never execute twice. A duplicate that waits longer than the lock timeout gets 409
 * IDEMPOTENCY_KEY_IN_PROGRESS and may retry.
 */
@Injectable()
export class IdempotencyService {
  constructor(
    private readonly db: LedgerDb,
    private readonly config: LedgerWalletsConfig,
  ) {}

  async run<T>(
    session: DbSession,
    scope: string,
    key: string,
    hash: string,
    operation: (record: RecordResponse) => Promise<{ status: number; body: T }>,
  ): Promise<IdempotentResponse<T>> {
    const lockKey = stringLockKey(`${scope}\u0000${key}`);
    try {
      await session.lock([lockKey]);
    } catch (error) {
      if (sqlState(error) === '55P03') throw new AppException('IDEMPOTENCY_KEY_IN_PROGRESS');
      throw error;
    }
    try {
      const stored = await session.one<{ request_hash: string; response_status: number; response_body: T }>(
        `SELECT request_hash, response_status, response_body FROM ledger.idempotency_keys
         WHERE scope = $1 AND key = $2 AND expires_at > now()`,
        [scope, key],
      );
      if (stored) {
        if (stored.request_hash !== hash) {
          throw new AppException('IDEMPOTENCY_KEY_CONFLICT', 'This idempotency key was already used with a different request body');
        }
        return { status: stored.response_status, body: stored.response_body, replayed: true };
      }
      const record: RecordResponse = async (s, status, body) => {
        // An expired row the cleanup has not removed yet is replaced; a live one cannot exist here.
        await s.query(
          `INSERT INTO ledger.idempotency_keys (scope, key, request_hash, response_status, response_body, expires_at)
           VALUES ($1, $2, $3, $4, $5::json, now() + make_interval(hours => $6))
           ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash,
             response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
             created_at = now(), expires_at = EXCLUDED.expires_at
           WHERE ledger.idempotency_keys.expires_at <= now()`,
          [scope, key, hash, status, JSON.stringify(body), this.config.LEDGER_IDEMPOTENCY_TTL_HOURS],
        );
      };
      const result = await operation(record);
      return { ...result, replayed: false };
    } finally {
      await session.unlock([lockKey]);
    }
  }

  /** Removes keys past their validity (48 h by default). */
  async purgeExpired(): Promise<number> {
    const rows = await this.db.query<{ n: string }>(
      `WITH gone AS (DELETE FROM ledger.idempotency_keys WHERE expires_at <= now() RETURNING 1) SELECT count(*)::text AS n FROM gone`,
    );
    return Number(rows[0]?.n ?? 0);
  }
}
