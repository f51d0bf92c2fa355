import type { LedgerDb } from '../db/ledger-db.service';
import { toMoney } from '../db/money';
import { type EntryLeg, balanceDeltas } from '../execution/double-entry';
import type { OriginalEntry } from './reversal-approval';

/** A transaction a reversal names, with every one of its entries (read in one query). */
export interface ReversalTarget {
  id: string;
  referenceId: string;
  amount: number;
  fee: number;
  currency: string;
  /** set when the transaction is itself a reversal */
  reversalOf: string | null;
  /** ordered by id; entries are append-only, so a read outside any lock stays true */
  entries: OriginalEntry[];
}

/** The transaction named by id or by reference, with its entries; undefined when there is none. */
export async function readReversalTarget(db: LedgerDb, by: { id: string } | { referenceId: string }): Promise<ReversalTarget | undefined> {
  const [row] = await db.query<{
    id: string;
    reference_id: string;
    amount: string;
    fee: string;
    currency: string;
    reversal_of: string | null;
    entries: OriginalEntry[];
  }>(
    `SELECT t.id, t.reference_id, t.amount::text, t.fee::text, t.currency, t.reversal_of,
            COALESCE((SELECT json_agg(json_build_object('id', l.id, 'account_id', l.account_id, 'kind', l.kind, 'amount', l.amount::text,
                                                       'counterparty_ledger_id', l.counterparty_ledger_id) ORDER BY l.id)
                      FROM ledger.ledgers l WHERE l.transaction_id = t.id), '[]'::json) AS entries
     FROM ledger.transactions t WHERE ${'id' in by ? 't.id = $1' : 't.reference_id = $1'}`,
    ['id' in by ? by.id : by.referenceId],
  );
  if (!row) return undefined;
  return {
    id: row.id,
    referenceId: row.reference_id,
    amount: toMoney(row.amount),
    fee: toMoney(row.fee),
    currency: row.currency.trim(),
    reversalOf: row.reversal_of,
    entries: row.entries,
  };
}

/**
 * The most that any one account moves when `legs` are written: the largest absolute net change of
 * a balance (0 without legs). For a reversal, computed on its inverse entries, it is what one
 * operator decision can put into, or take out of, a single account.
 */
export function largestAccountMovement(legs: EntryLeg[]): number {
  return balanceDeltas(legs).reduce((largest, d) => Math.max(largest, Math.abs(d.balance)), 0);
}
