import type { BatchStep } from './batch-query';
import { type ConfirmCall, EXECUTE_CONFIRM_BATCH_CALL, confirmBatchValues } from './execute-confirm-call';

/*
 * The statements that open and close a money transaction, and the batch of a group commit, shared
 * by LedgerDb and the benchmark that times them (bench/ledger/sql-floor.ts).
 */

/**
 * The start of every money transaction, as statements sent in one round trip: the advisory locks
 * (`keys`, ascending ids, each wait capped) in a transaction of their own, committed, then BEGIN
 * SERIALIZABLE with the lock wait cap and index scans only (see `LedgerDb.serializable`), whose
 * snapshot is taken by its first statement, after every lock is held. The locking transaction is
 * an explicit BEGIN … COMMIT: a COMMIT closing the implicit block of a multi-statement query (or of
 * an extended-protocol batch) makes PostgreSQL log "there is no transaction in progress" and send
 * that warning back, once per money transaction. If a lock wait fails, every later statement is
 * skipped and the session is left in a failed transaction block (the caller rolls back).
 */
export function openingStatements(keys: bigint[], lockTimeoutMs: number): string[] {
  const locking = keys.length > 0 ? ['BEGIN', `SELECT ledger.lock_keys('{${keys.join(',')}}'::bigint[], ${lockTimeoutMs})`, 'COMMIT'] : [];
  return [
    ...locking,
    'BEGIN ISOLATION LEVEL SERIALIZABLE',
    `SET LOCAL lock_timeout = '${lockTimeoutMs}ms'`,
    'SET LOCAL enable_seqscan = off',
  ];
}

/** Releases the session-level advisory locks of one money transaction. */
export function releaseSql(lockKeys: bigint[]): string {
  return `SELECT pg_advisory_unlock(k) FROM unnest('{${lockKeys.join(',')}}'::bigint[]) AS k`;
}

/** A group commit's batch (LedgerDb.together): its steps and where the call and the COMMIT sit among them. */
export interface ConfirmBatch {
  /** the prepared statement's name and text (BatchQuery) */
  name: string;
  prepared: string;
  steps: BatchStep[];
  /** index of the call's step (its rows: one per confirm, in order), and of the COMMIT's */
  callAt: number;
  commitAt: number;
}

/**
 * The opening, ONE call of `ledger.execute_confirm_batch` with every confirm (the `ledger.confirm_call`
 * value of each, TransferExecutor.plan's `call`), the COMMIT and the release of `lockKeys`: one exchange.
 */
export function confirmBatch(opening: string[], calls: ConfirmCall[], lockKeys: bigint[]): ConfirmBatch {
  return {
    name: 'ledger_execute_confirm_batch',
    prepared: EXECUTE_CONFIRM_BATCH_CALL,
    steps: [
      ...opening.map((text) => ({ text })),
      { text: EXECUTE_CONFIRM_BATCH_CALL, values: confirmBatchValues(calls) },
      { text: 'COMMIT' },
      { text: releaseSql(lockKeys) },
    ],
    callAt: opening.length,
    commitAt: opening.length + 1,
  };
}
