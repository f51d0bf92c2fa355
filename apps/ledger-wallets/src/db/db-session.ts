import type { QueryRunner } from 'typeorm';
import { type BatchOutcome, BatchQuery, type BatchStep } from './batch-query';
import { retryLater } from './session-gate';

/** One pooled connection for the whole of a request's money path (advisory locks are per session). */
export class DbSession {
  /** advisory lock keys this session holds, in acquisition order */
  readonly heldLocks: bigint[] = [];
  inTransaction = false;
  /** a statement to send in the COMMIT round trip (see LedgerDb.serializable) */
  beforeCommit?: string;
  /**
   * A cleanup statement (a ROLLBACK, a release of locks) failed on a live connection: it may still
   * be in a transaction or hold advisory locks, so it must not go back to the pool (LedgerDb.withSession).
   */
  unclean?: unknown;

  constructor(
    private readonly runner: QueryRunner,
    private readonly lockTimeoutMs: number,
  ) {}

  /**
   * The connection broke (TypeORM releases the runner when its client errors). PostgreSQL has
   * already rolled back the session's transaction and dropped its advisory locks.
   */
  get lost(): boolean {
    return this.runner.isReleased;
  }

  /** A statement on a lost connection is a database outage for the caller (503), not a bug (500). */
  private live(): void {
    if (this.runner.isReleased) throw retryLater('The database connection was lost; retry with the same idempotency key');
  }

  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    this.live();
    const result = await this.runner.query(sql, params, true);
    return (result.records ?? []) as T[];
  }

  /**
   * Ends the session's transaction, if one is open. On a lost connection there is nothing to do
   * (the server rolled it back). A refused ROLLBACK leaves the session unclean, and is thrown.
   */
  async rollback(): Promise<void> {
    if (!this.inTransaction) return;
    this.inTransaction = false;
    if (this.lost) return;
    await this.exec('ROLLBACK').catch((error: unknown) => {
      this.unclean = error;
      throw error;
    });
  }

  /** Several statements without parameters in one round trip (simple query protocol). */
  async exec(sql: string): Promise<void> {
    this.live();
    await this.runner.query(sql);
  }

  /** Several statements without parameters in one round trip; the rows of each statement, in order. */
  async batch(sql: string): Promise<Record<string, unknown>[][]> {
    this.live();
    // TypeORM's runner flattens multi-statement results; the pooled pg client it holds returns them all.
    const result = (await this.client().query(sql)) as { rows: Record<string, unknown>[] } | { rows: Record<string, unknown>[] }[];
    return (Array.isArray(result) ? result : [result]).map((r) => r.rows ?? []);
  }

  /**
   * A statement PostgreSQL parses and plans once per connection (a named prepared statement of the
   * extended protocol): for the reads every transfer repeats. `name` must identify `sql` for good.
   */
  async prepared<T = Record<string, unknown>>(name: string, sql: string, params: unknown[]): Promise<T[]> {
    this.live();
    const result = (await this.client().query({ name, text: sql, values: params })) as { rows: T[] };
    return result.rows;
  }

  /**
   * Several statements in one exchange ended by a single Sync (`BatchQuery`): one write, one answer
   * read at once. Resolves with what completed and the error that stopped it, never rejects: the
   * caller decides from how far the batch got.
   */
  async sendBatch(name: string, prepared: string, steps: BatchStep[]): Promise<BatchOutcome> {
    this.live();
    const batch = new BatchQuery(name, prepared, steps);
    (this.client() as unknown as { query(batch: BatchQuery): unknown }).query(batch);
    return batch.done;
  }

  /**
   * Takes session-level advisory locks (ascending order, capped wait) and runs `reads` once they are
   * held, in one round trip; returns the rows of each read, in order. Values in the reads must be
   * literals (sql-literal.ts): the simple protocol takes no parameters.
   */
  async lockAndRead(keys: bigint[], ...reads: string[]): Promise<Record<string, unknown>[][]> {
    const fresh = keys.filter((k) => !this.heldLocks.includes(k));
    const locking = fresh.length > 0 ? `SELECT ledger.lock_keys('{${fresh.join(',')}}'::bigint[], ${this.lockTimeoutMs}); ` : '';
    const results = await this.batch(`${locking}${reads.join('; ')}`).catch(async (error: unknown) => {
      // A timeout part-way leaves the first keys held: release whatever this call took.
      await this.unlock(fresh, true);
      throw error;
    });
    this.heldLocks.push(...fresh);
    return results.slice(results.length - reads.length);
  }

  /** Whether this session holds the advisory lock `key` (taken through `lock` or `lockAndRead`). */
  holds(key: bigint): boolean {
    return this.heldLocks.includes(key);
  }

  /** The pooled pg client the TypeORM runner holds (for what TypeORM does not offer: batches, named statements). */
  private client(): { query(config: string | { name: string; text: string; values: unknown[] }): Promise<unknown> } {
    return (this.runner as unknown as { databaseConnection: ReturnType<DbSession['client']> }).databaseConnection;
  }

  async one<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T | undefined> {
    return (await this.query<T>(sql, params))[0];
  }

  /** Session-level advisory locks, in the given order (callers pass ascending order). */
  async lock(keys: bigint[]): Promise<void> {
    const fresh = keys.filter((k) => !this.heldLocks.includes(k));
    if (fresh.length === 0) return;
    await this.query('SELECT ledger.lock_keys($1::bigint[], $2)', [fresh.map(String), this.lockTimeoutMs]).catch(async (error: unknown) => {
      // A timeout part-way leaves the first keys held: release whatever this call took.
      await this.unlock(fresh, true);
      throw error;
    });
    this.heldLocks.push(...fresh);
  }

  async unlock(keys: bigint[], quiet = false): Promise<void> {
    if (keys.length === 0) return;
    // Nothing to release on a lost connection, and trying would hide the request's own error.
    if (this.lost) {
      this.forget(keys);
      return;
    }
    await this.runner.query(`SELECT pg_advisory_unlock(k) FROM unnest($1::bigint[]) AS k`, [keys.map(String)]).catch((error: unknown) => {
      this.unclean = error;
      if (!quiet) throw error;
    });
    this.forget(keys);
  }

  /** Bookkeeping after locks were released by a statement of the caller's own. */
  forget(keys: bigint[]): void {
    for (const k of keys) {
      const i = this.heldLocks.indexOf(k);
      if (i >= 0) this.heldLocks.splice(i, 1);
    }
  }
}
