import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { DbSession } from '../db/db-session';
import { stringLockKey } from '../db/lock-keys';
import { sqlState } from '../db/sql-errors';
import { LedgerDb } from '../db/ledger-db.service';
import { lit } from '../db/sql-literal';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import type { StageTimer } from '../common/stage-timing';

export interface IdempotentResponse<T> {
  status: number;
  body: T;
  /** true when this answer is the stored one of an earlier request */
  replayed: boolean;
}

/** The key an operation runs under, for an operation that writes its response itself (see `RecordResponse.entry`). */
export interface IdempotencyEntry {
  scope: string;
  key: string;
  /** SHA-256 of the canonical request */
  hash: string;
  ttlHours: number;
  /** the advisory lock serialising requests with this key (held by the session while the operation runs) */
  lockKey: bigint;
}

/**
 * Stores the response inside the operation's own transaction (atomic with its effects). `entry`
 * lets an operation write the same row in its own statement instead (the SUCCEEDED execution
 * does, in the round trip of its COMMIT) and release the key's lock there too.
 */
export type RecordResponse = ((session: DbSession, status: number, body: unknown) => Promise<void>) & { entry?: IdempotencyEntry };

/**
 * The idempotency rules (docs/ledger.md "Idempotency"), reusable by every endpoint that takes a key. Requests sharing
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
    /** `alsoRead`'s rows are the second argument */
    operation: (record: RecordResponse, alsoRead: Record<string, unknown>[]) => Promise<{ status: number; body: T }>,
    /** Server-Timing: the key's lock and lookup are the `idem` stage */
    timer?: StageTimer,
    /**
     * A plain read the operation needs, sent in the round trip of the key's lock and lookup (values
     * as literals, sql-literal.ts); wasted only when the key replays.
     */
    alsoRead?: string,
  ): Promise<IdempotentResponse<T>> {
    const lockKey = stringLockKey(`${scope}\u0000${key}`);
    let stored: { request_hash: string; response_status: number; response_body: T } | undefined;
    let extra: Record<string, unknown>[];
    try {
      // The key's lock and the lookup in one round trip (the lookup runs once the lock is held).
      const lookup = `SELECT request_hash, response_status, response_body FROM ledger.idempotency_keys
         WHERE scope = ${lit(scope)} AND key = ${lit(key)} AND expires_at > now()`;
      const [rows, read] = await session.lockAndRead([lockKey], ...(alsoRead ? [lookup, alsoRead] : [lookup]));
      stored = rows[0] as typeof stored;
      extra = read ?? [];
    } catch (error) {
      if (sqlState(error) === '55P03') throw new AppException('IDEMPOTENCY_KEY_IN_PROGRESS');
      throw error;
    }
    try {
      if (stored) {
        if (stored.request_hash !== hash) {
          throw new AppException('IDEMPOTENCY_KEY_CONFLICT', 'This idempotency key was already used with a different request body');
        }
        timer?.lap('idem');
        return { status: stored.response_status, body: stored.response_body, replayed: true };
      }
      timer?.lap('idem');
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
      record.entry = { scope, key, hash, ttlHours: this.config.LEDGER_IDEMPOTENCY_TTL_HOURS, lockKey };
      const result = await operation(record, extra);
      return { ...result, replayed: false };
    } finally {
      // The operation may have released the key already, in its COMMIT's round trip.
      if (session.holds(lockKey)) await session.unlock([lockKey]);
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
