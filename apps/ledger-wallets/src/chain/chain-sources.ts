import type { DbSession } from '../db/db-session';
import type { ChainEntryRow } from './chain-link';
import type { ChainBreak } from './chain-walk';

/** At most this many untraceable transactions are read per check: one is enough to refuse, the list is bounded. */
export const UNTRACEABLE_READ = 10_000;

/**
 * Whether the transaction `t` was written by one of the ledger's writers, each of which records, in
 * the same database transaction, a row naming it (docs/ledger-chain.md#every-transaction-has-a-source):
 * - the confirm functions (`execute_confirm`, `execute_confirm_batch`, the legacy direct transfer on
 *   the intent path): a SUCCEEDED intent whose `transaction_id` is it, and that it names back;
 * - an executed maker-checker correction (account corrections, reversals, float funding, every staff
 *   ledger operation): `corrections.transaction_id`;
 * - the legacy balance add/subtract (test funding, NODE_ENV=test only): `operator_actions.transaction_id`.
 * A transaction none of them names was written by hand.
 */
export const TRACEABLE_SQL = (t: string) => `(
  EXISTS (SELECT 1 FROM ledger.transaction_intents i WHERE i.id = ${t}.intent_id AND i.transaction_id = ${t}.id AND i.status = 'SUCCEEDED')
  OR EXISTS (SELECT 1 FROM ledger.corrections c WHERE c.transaction_id = ${t}.id AND c.status = 'EXECUTED')
  OR EXISTS (SELECT 1 FROM ledger.operator_actions o WHERE o.transaction_id = ${t}.id))`;

/** Every transaction of the ledger without a source (at most UNTRACEABLE_READ), in the caller's snapshot. */
export async function untraceableTransactions(s: DbSession): Promise<Set<string>> {
  const rows = await s.query<{ id: string }>(
    `SELECT t.id FROM ledger.transactions t WHERE NOT ${TRACEABLE_SQL('t')} LIMIT ${UNTRACEABLE_READ}`,
  );
  return new Set(rows.map((r) => r.id));
}

/** Which of these transactions have no source. */
export async function untraceableAmong(s: DbSession, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await s.query<{ id: string }>(
    `SELECT t.id FROM ledger.transactions t WHERE t.id = ANY($1::uuid[]) AND NOT ${TRACEABLE_SQL('t')} LIMIT ${UNTRACEABLE_READ}`,
    [ids],
  );
  return new Set(rows.map((r) => r.id));
}

/** The break of an entry whose transaction has no source. */
export function untraceableBreak(e: ChainEntryRow): ChainBreak {
  return {
    kind: 'UNTRACEABLE',
    accountId: e.account_id,
    entryId: e.id,
    chainSeq: e.chain_seq === null ? null : Number(e.chain_seq),
    transactionId: e.transaction_id,
    referenceId: e.reference_id,
    expected: 'a succeeded intent, an executed correction or an operator action naming the transaction',
    found: 'none',
    detail: 'no writer of the ledger recorded this transaction: it was written by hand (its links may be right)',
  };
}
