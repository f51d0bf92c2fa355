import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { DatabaseError } from 'pg';
import { DataSource } from 'typeorm';
import type { Counter } from 'prom-client';
import { AppException } from '@mm/errors';
import { MetricsService } from '@mm/platform';
import { LedgerWalletsConfig, retryDelays } from '../ledger-wallets.config';
import { DbSession } from './db-session';
import { confirmBatch, openingStatements, releaseSql } from './money-statements';
import { CONFIRM_CHECKED_CALL, type ConfirmCall, confirmCallLiteral } from './execute-confirm-call';
import { GroupCommit, type GroupItem, type GroupOutcome } from './group-commit';
import { moneyLockKeys } from './lock-keys';
import { SessionGate, retryLater } from './session-gate';
import { outOfRange } from './money';
import {
  DOUBLE_ENTRY_CONSTRAINTS,
  MONEY_RANGE_CONSTRAINTS,
  RETRYABLE_SQLSTATES,
  constraintName,
  isCheckViolation,
  isUniqueViolation,
  sqlState,
} from './sql-errors';

/**
 * The money path's access to PostgreSQL. Raw SQL through TypeORM's query runner: every statement
 * of a transfer is visible here and in the benchmark's pgbench script (B1).
 */
@Injectable()
export class LedgerDb implements OnModuleDestroy {
  private readonly logger = new Logger(LedgerDb.name);
  private readonly delays: number[];
  private readonly retries: Counter<'sqlstate'>;
  private readonly conflicts: Counter;
  private readonly violations: Counter<'constraint'>;
  private readonly grouped: Counter;
  private readonly groups: GroupCommit;
  private readonly gate: SessionGate;
  /** set when the process starts stopping: a failed attempt is no longer replayed */
  private draining = false;
  /** set inside `withSession`: that request was admitted already */
  private readonly admittedScope = new AsyncLocalStorage<true>();

  constructor(
    readonly dataSource: DataSource,
    private readonly config: LedgerWalletsConfig,
    metrics: MetricsService,
  ) {
    this.delays = retryDelays(config);
    this.retries = metrics.counter('ledger_transaction_retries_total', 'Money transactions replayed after 40001/55P03/40P01', ['sqlstate']);
    this.conflicts = metrics.counter('ledger_concurrency_conflicts_total', 'Money transactions given up after every retry (409)');
    this.violations = metrics.counter(
      'ledger_double_entry_violations_total',
      'Money transactions the database refused at COMMIT because their entries did not balance',
      ['constraint'],
    );
    this.grouped = metrics.counter(
      'ledger_grouped_operations_total',
      'Money operations committed in a shared transaction with others (group commit: a busy account, or a busy ledger)',
    );
    const waiting = metrics.gauge('ledger_group_commit_waiting', 'Money operations queued for a shared transaction (group commit)');
    const fallbacks = metrics.counter(
      'ledger_group_commit_fallbacks_total',
      'Money operations run again alone because their shared transaction failed as a whole (nothing of it committed)',
      ['sqlstate'],
    );
    this.groups = new GroupCommit(
      {
        single: (item) => this.confirm(item.session, moneyLockKeys(item.accountIds, item.intentId), item.call, item.alsoRelease),
        together: (session, lockKeys, calls) => this.together(session, lockKeys, calls),
        waiting: (delta) => waiting.inc(delta),
        fellBack: (size, error) => {
          fallbacks.inc({ sqlstate: sqlState(error) ?? 'none' }, size);
          this.logger.debug({ err: error, size }, 'group commit: the shared transaction failed; its operations run alone');
        },
        mayHaveCommitted: (error) =>
          error instanceof AppException && error.code === 'SERVICE_UNAVAILABLE' && error.message === OUTCOME_UNKNOWN,
      },
      config.LEDGER_GROUP_COMMIT_TRANSACTIONS,
    );
    const sessionsWaiting = metrics.gauge('ledger_session_queue_waiting', 'Requests waiting for a database session (overload queue)');
    const refused = metrics.counter('ledger_session_refused_total', 'Requests refused with 503 before touching the database', ['reason']);
    this.gate = new SessionGate(
      {
        // One connection stays outside the gate, for the health check and for the reads an admitted
        // session makes (query() inside withSession): neither queues behind a burst nor waits on a
        // connection its own session holds. The config refuses DB_POOL_SIZE < 2 for that reason.
        capacity: config.DB_POOL_SIZE - 1,
        queueLimit: config.LEDGER_SESSION_QUEUE_LIMIT,
        waitMs: config.LEDGER_SESSION_WAIT_MS,
      },
      { waiting: (delta) => sessionsWaiting.inc(delta), refused: (reason) => refused.inc({ reason }) },
    );
  }

  /**
   * The first step of shutdown (before the HTTP server drains): requests still waiting for a session
   * are refused (503, nothing done), and a money transaction that fails from now on is not replayed,
   * so what is in flight ends within one lock wait instead of a whole series of replays.
   */
  onModuleDestroy(): void {
    this.draining = true;
    this.gate.refuseWaiting();
    this.groups.stop(() => retryLater(STOPPING));
  }

  /** Plain queries on a pooled connection (reads, non-money writes), admitted through the gate like sessions. */
  query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    const run = () => this.dataSource.query(sql, params) as Promise<T[]>;
    // Inside a session the request holds its admission already: queueing again would have it wait
    // on itself. Such a read takes a connection of the one kept outside the gate.
    return this.admittedScope.getStore() ? run() : this.admitted(run);
  }

  /** Runs `fn` on one dedicated connection; whatever it leaves open or locked is cleaned up. */
  withSession<T>(fn: (session: DbSession) => Promise<T>): Promise<T> {
    return this.admitted(() => this.admittedScope.run(true, () => this.inSession(fn)));
  }

  /** `work` once the gate admits it (or the gate's 503), its slot given back however it ends. */
  private async admitted<T>(work: () => Promise<T>): Promise<T> {
    const leave = await this.gate.acquire();
    try {
      return await work();
    } finally {
      leave();
    }
  }

  private async inSession<T>(fn: (session: DbSession) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    const session = new DbSession(runner, this.config.LEDGER_LOCK_TIMEOUT_MS);
    let broken: unknown;
    try {
      return await fn(session);
    } finally {
      try {
        await session.rollback();
        if (session.heldLocks.length > 0 && !session.lost) await session.exec('SELECT pg_advisory_unlock_all()');
      } catch (error) {
        broken = error;
      }
      // A cleanup that failed earlier (its locks already forgotten, or a ROLLBACK refused) counts too.
      if (!broken && session.unclean !== undefined && !session.lost) broken = session.unclean;
      // A connection we could not clean is destroyed rather than handed back with locks on it.
      const pgRunner = runner as unknown as { releasePostgresConnection?: (err?: unknown) => Promise<void> };
      if (broken && pgRunner.releasePostgresConnection) await pgRunner.releasePostgresConnection(broken);
      else await runner.release();
    }
  }

  /**
   * One money transaction (docs/ledger.md "Locks, isolation and retries"): takes the advisory locks
   * of `lockKeys` in the order given (intent, then accounts ascending) BEFORE the SERIALIZABLE
   * transaction starts, so its snapshot already contains whatever the previous holder committed: a
   * waiter reads the new balance instead of failing with 40001. Inside, `work` still takes
   * `SELECT … FOR UPDATE` row locks (the documented rule, and the guard against any writer that
   * skips the advisory locks). Replays on 40001/55P03/40P01 after the configured waits, then 409
   * CONCURRENCY_CONFLICT. On success the locks are released in the COMMIT round trip; locks the
   * caller took before (an idempotency key) stay held.
   */
  async serializable<T>(
    session: DbSession,
    lockKeys: bigint[],
    work: (session: DbSession, firstRows: Record<string, unknown>[]) => Promise<T>,
    /** a first read (steps 1 and 2), sent in the same round trip as the locks and BEGIN */
    firstRead?: string,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        // Locks, BEGIN and the first read in one round trip (simple protocol: the keys are our own
        // integers and the read's values are inlined literals). The implicit transaction of the
        // lock call is committed, then the SERIALIZABLE one begins; its snapshot is taken by its
        // first statement, after every lock is held. enable_seqscan off: on a small table the
        // planner would read a row by primary key with a sequential scan, and under SERIALIZABLE
        // that takes a predicate lock on the whole relation, so any concurrent write to the table
        // becomes a 40001. Index scans lock pages.
        const { fresh, statements } = this.opening(session, lockKeys);
        session.inTransaction = true;
        session.beforeCommit = undefined;
        const results = await session.batch((firstRead ? [...statements, firstRead] : statements).join('; '));
        session.heldLocks.push(...fresh);
        const result = await work(session, firstRead ? results[results.length - 1] : []);
        // The last write (when the work deferred one), COMMIT and the release in one round trip.
        const last = session.beforeCommit ? `${session.beforeCommit}; ` : '';
        session.beforeCommit = undefined;
        await session.exec(`${last}COMMIT; ${releaseSql(lockKeys)}`);
        session.inTransaction = false;
        session.forget(lockKeys);
        return result;
      } catch (error) {
        await this.recover(session, lockKeys, error, attempt);
      }
    }
  }

  /**
   * The move to SUCCEEDED alone, in ONE prepared statement: `CALL ledger.confirm_checked`
   * (apps/ledger-wallets/sql/confirm_checked.sql) takes the advisory locks in a first transaction,
   * then runs `ledger.execute_confirm` with `call` (one `ledger.confirm_call` value, bound) in a SERIALIZABLE transaction whose
   * snapshot follows the locks, commits and releases `lockKeys` and `alsoRelease`: no application
   * code runs while the locks are held, which is what a hot account needs. Same replays and 409 as
   * `serializable`; `alsoRelease` are locks the caller took before (an idempotency key). On an
   * error the procedure's transaction is already rolled back; the locks it took are released here
   * before the replay (or the 409), as after any failed attempt.
   */
  async confirm(session: DbSession, lockKeys: bigint[], call: ConfirmCall, alsoRelease: bigint[] = []): Promise<Record<string, unknown>[]> {
    const fresh = lockKeys.filter((k) => !session.heldLocks.includes(k));
    const release = [...lockKeys, ...alsoRelease].map(String);
    const literal = confirmCallLiteral(call);
    for (let attempt = 0; ; attempt++) {
      try {
        const rows = await session.prepared('ledger_confirm_checked', CONFIRM_CHECKED_CALL, [
          fresh.map(String),
          release,
          this.config.LEDGER_LOCK_TIMEOUT_MS,
          literal,
        ]);
        session.forget(alsoRelease);
        return rows;
      } catch (error) {
        // The reference drawn for this call is taken (see reference-id.ts): sending the same
        // parameters again would collide again. The caller builds the call anew, with a fresh one.
        if (isUniqueViolation(error, REFERENCE_CONSTRAINT)) {
          await this.abandon(session, lockKeys);
          throw new ReferenceIdTaken();
        }
        await this.recover(session, lockKeys, error, attempt);
      }
    }
  }

  /**
   * One confirm per operation: alone (`confirm`) when its accounts are idle,
   * else in the group commit of its busiest account (`group-commit.ts`): the operations queued on a
   * hot account share one transaction, one lock hold and one WAL flush.
   */
  runGrouped(item: GroupItem): Promise<GroupOutcome> {
    return this.groups.run(item);
  }

  /**
   * Several confirms in ONE money transaction and ONE round trip, as one extended-protocol batch
   * ended by a single Sync (`BatchQuery`): the opening of every money transaction (the locks of all
   * of them, `lockKeys` in the global order, then BEGIN SERIALIZABLE), ONE prepared call of
   * `ledger.execute_confirm_batch` with every confirm (parsed once per connection; it answers what
   * the calls of `ledger.execute_confirm` one after the other would, and writes each table in one
   * statement), the COMMIT and the release. One attempt: when nothing was committed, everything is
   * released and the error thrown (the group commit then runs each confirm alone, with its own
   * retries). Returns the row of each confirm, in order.
   *
   * How far the batch got says what happened. After an error PostgreSQL skips every statement up
   * to the Sync: a lock wait or a call that failed means the COMMIT never ran (and the call never
   * ran without its locks). The COMMIT answered means committed. An error on the COMMIT itself is a
   * rollback (a serialization failure, a deferred double-entry check), except a cancel or shutdown,
   * which may strike after the commit. No answer (the connection broke) before the COMMIT's may
   * hide a commit: the confirms then answer 503, "retry with your key".
   */
  async together(session: DbSession, lockKeys: bigint[], calls: ConfirmCall[]): Promise<Record<string, unknown>[][]> {
    const { statements: opening } = this.opening(session, lockKeys);
    const batch = confirmBatch(opening, calls, lockKeys);
    session.inTransaction = true;
    const { results, error, sent } = await session.sendBatch(batch.name, batch.prepared, batch.steps);
    if (results.length > batch.commitAt && results[batch.commitAt].command === 'COMMIT') {
      session.inTransaction = false;
      // The release failed: released here (or by the connection, if it broke).
      if (results.length < batch.commitAt + 2) await session.unlock(lockKeys, true);
      this.grouped.inc(calls.length);
      const rows = results[batch.callAt].rows;
      if (rows.length !== calls.length) {
        // Committed, but which answer is whose is lost (a bug of the function): like an unknown
        // outcome, never run again; a retry with the same key gets the stored answer.
        this.logger.error({ rows: rows.length, calls: calls.length }, 'group commit: the batch committed with a wrong number of answers');
        throw retryLater(OUTCOME_UNKNOWN);
      }
      return rows.map((row) => [row]);
    }
    // Only an error PostgreSQL sent carries a SQLSTATE to trust; a socket's (ECONNRESET…) says
    // nothing of how far the server got.
    const state = error instanceof DatabaseError ? error.code : undefined;
    const atCommit = results.length === batch.commitAt;
    // Refused by the server before the COMMIT: it was skipped. The COMMIT refused: rolled back,
    // unless a cancel or shutdown struck it. The connection broken: the server may have gone on
    // to commit, unless nothing had been sent.
    const outcomeUnknown = sent && (session.lost || !state || (atCommit && /^(08|57|58|XX)/.test(state)));
    // Still in the (failed) transaction only when a statement before the COMMIT was refused.
    session.inTransaction = sent && results.length < batch.commitAt;
    // A refused ROLLBACK leaves the session unclean (withSession then drops the connection).
    await this.abandon(session, lockKeys).catch(() => undefined);
    if (outcomeUnknown) {
      this.logger.warn({ err: error }, 'group commit: the batch may have committed; its operations answer 503');
      throw retryLater(OUTCOME_UNKNOWN);
    }
    throw error ?? new Error(`the batch's COMMIT answered ${results[batch.commitAt]?.command}`);
  }

  /** The start of every money transaction (`openingStatements`), for the advisory locks this session does not hold yet. */
  private opening(session: DbSession, lockKeys: bigint[]): { fresh: bigint[]; statements: string[] } {
    const fresh = lockKeys.filter((k) => !session.heldLocks.includes(k));
    return { fresh, statements: openingStatements(fresh, this.config.LEDGER_LOCK_TIMEOUT_MS) };
  }

  /** After a failed attempt: roll back, release, then throw (not retryable, or out of retries) or wait before the replay. */
  private async recover(session: DbSession, lockKeys: bigint[], error: unknown, attempt: number): Promise<void> {
    await this.abandon(session, lockKeys);
    this.rethrowConstraint(error);
    // A reference id collision is replayed like a serialization failure: `serializable` builds its
    // statements again, with a fresh reference (`confirm` throws ReferenceIdTaken before this).
    const state = isUniqueViolation(error, REFERENCE_CONSTRAINT) ? '40001' : sqlState(error);
    if (!state || !RETRYABLE_SQLSTATES.has(state)) throw error;
    // Rolled back and released above: nothing of this request was committed.
    if (this.draining) throw retryLater(STOPPING);
    if (attempt >= this.delays.length) {
      this.conflicts.inc();
      this.logger.warn({ sqlstate: state, attempts: attempt + 1 }, 'money transaction gave up after retries');
      throw new AppException('CONCURRENCY_CONFLICT');
    }
    this.retries.inc({ sqlstate: state });
    this.logger.debug(
      { sqlstate: state, attempt: attempt + 1, detail: (error as { detail?: string }).detail, message: (error as Error).message },
      'replaying money transaction',
    );
    // Up to 25% jitter: transactions that failed together must not replay in lockstep.
    await sleep(Math.round(this.delays[attempt] * (1 + Math.random() * 0.25)));
  }

  /** A failed attempt's transaction rolled back (if still open) and its advisory locks released. */
  private async abandon(session: DbSession, lockKeys: bigint[]): Promise<void> {
    session.beforeCommit = undefined;
    await session.rollback();
    await session.unlock(lockKeys, true);
  }

  /**
   * The database's last-line checks, turned into stable codes: a balance or amount leaving the
   * exact integer range is the caller's 422; a transaction refused at COMMIT for not balancing
   * means the service itself built wrong entries (500 LEDGER_INTEGRITY_VIOLATION,
   * docs/ledger.md "Rules the database enforces"), logged at ERROR so the alerting on error logs
   * and the metric both see it.
   */
  private rethrowConstraint(error: unknown): void {
    if (isCheckViolation(error, MONEY_RANGE_CONSTRAINTS)) throw outOfRange('the resulting amount or balance');
    if (isCheckViolation(error, DOUBLE_ENTRY_CONSTRAINTS)) {
      const constraint = constraintName(error)!;
      this.violations.inc({ constraint });
      this.logger.error({ err: error, constraint }, 'the database refused an unbalanced money transaction at COMMIT');
      throw new AppException('LEDGER_INTEGRITY_VIOLATION', 'The transaction was refused: its entries do not balance');
    }
  }
}

const REFERENCE_CONSTRAINT = 'UQ_transactions_reference_id';

/**
 * `LedgerDb.confirm` found the transaction's reference id already used (nothing was written). Its
 * parameters (the stored response and the event included) carry that reference, so the caller
 * plans the call again. Expected a few times a day at a million transactions a day (birthday
 * bound on 36^7 references per day); should it ever escape, it is the usual 409.
 */
export class ReferenceIdTaken extends AppException {
  constructor() {
    super('CONCURRENCY_CONFLICT', 'The transaction reference drawn was already taken; nothing was written');
  }
}

const OUTCOME_UNKNOWN = 'The database did not confirm the outcome; retry with the same idempotency key';
/** Shutdown refusals on the money path: queued, or failed and not replayed; rolled back either way. */
const STOPPING = 'The ledger is shutting down: nothing of this operation was committed; retry after the Retry-After delay';
