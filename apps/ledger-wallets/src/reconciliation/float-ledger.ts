import { businessDayOf } from '@mm/contracts';
import type { DbSession } from '../db/db-session';
import { iso, toMoney } from '../db/money';
import type { FloatMovement } from './matching';

/**
 * What the ledger says about the float, read inside the caller's snapshot.
 *
 * Issuance and redemption: in this ledger e-money enters and leaves circulation only through the
 * currency's `suspense` account: every ACCOUNT correction (agent float funding included) credits or
 * debits a holder against it, and a reversal of one undoes it. A transaction that takes money from
 * suspense issued e-money (the trust account should receive as much: a bank CREDIT); one that gives
 * money back to suspense redeemed it (a bank DEBIT). docs/reconciliation.md, "Float movements".
 */
export async function readFloatMovements(
  s: DbSession,
  currency: string,
  /** the bank's day offset: a movement's `businessDay` is its day there */
  utcOffset: string,
  from: Date,
  to: Date,
  excluded: readonly string[],
  /** transactions read wherever they fall (corrections an officer made for a bank line, perhaps days later) */
  included: readonly string[] = [],
): Promise<FloatMovement[]> {
  const window = await floatMovementRows(
    s,
    // a range of IDX_ledgers_account_booked, not the account's whole history: an entry is written
    // in the same database transaction as its ledger transaction (a day of slack for any clock)
    `l.created_at >= $2::timestamptz - interval '1 day' AND l.created_at < $3::timestamptz + interval '1 day'
        AND t.completed_at >= $2 AND t.completed_at < $3 AND NOT (t.id = ANY($4::uuid[]))`,
    [currency, from, to, excluded],
    utcOffset,
  );
  const seen = new Set(window.map((m) => m.transactionId));
  const wanted = included.filter((id) => !seen.has(id) && !excluded.includes(id));
  if (wanted.length === 0) return window;
  const extra = await floatMovementRows(s, `l.transaction_id = ANY($2::uuid[])`, [currency, wanted], utcOffset);
  return [...window, ...extra].sort((a, b) => a.completedAt.localeCompare(b.completedAt) || a.transactionId.localeCompare(b.transactionId));
}

async function floatMovementRows(s: DbSession, filter: string, params: unknown[], utcOffset: string): Promise<FloatMovement[]> {
  const rows = await s.query<{
    transaction_id: string;
    reference_id: string;
    completed_at: Date;
    net: string;
    correction_id: string | null;
    account_id: string;
    account_type: string;
    reversal_of: string | null;
  }>(
    `SELECT t.id AS transaction_id, t.reference_id, t.completed_at, t.reversal_of,
            sum(CASE WHEN l.kind = 'DEBIT' THEN l.amount ELSE -l.amount END)::text AS net,
            (SELECT c.id FROM ledger.corrections c WHERE c.transaction_id = t.id) AS correction_id,
            min(o.account_id::text) AS account_id, min(a.account_type) AS account_type
       FROM ledger.accounts sa
       JOIN ledger.wallets sw ON sw.id = sa.wallet_id AND sw.owner_type = 'SYSTEM'
       JOIN ledger.ledgers l ON l.account_id = sa.id
       JOIN ledger.transactions t ON t.id = l.transaction_id
       JOIN ledger.ledgers o ON o.id = l.counterparty_ledger_id
       JOIN ledger.accounts a ON a.id = o.account_id
      WHERE sa.account_type = 'suspense' AND sa.currency = $1
        AND ${filter}
      GROUP BY t.id
      ORDER BY t.completed_at, t.id`,
    params,
  );
  return rows
    .map((r) => ({ ...r, net: toMoney(r.net) }))
    .filter((r) => r.net !== 0)
    .map((r) => ({
      transactionId: r.transaction_id,
      referenceId: r.reference_id,
      completedAt: iso(r.completed_at)!,
      businessDay: businessDayOf(r.completed_at, utcOffset),
      direction: r.net > 0 ? ('CREDIT' as const) : ('DEBIT' as const),
      amount: Math.abs(r.net),
      correctionId: r.correction_id,
      accountId: r.account_id,
      accountType: r.account_type,
      reversalOf: r.reversal_of,
    }));
}

/**
 * The e-money in circulation at `cutoff`: what the platform owes every holder (customers, agents,
 * merchants, organisations, agents' commission accounts), the sum of their balances. By double
 * entry it is minus the sum of the platform's own accounts (the SYSTEM wallet: suspense, treasury,
 * fee collection, agent commission, black), which are a handful of rows: each is read as it is now,
 * less its entries written since the cutoff. docs/reconciliation.md, "E-money in circulation".
 */
export async function circulationAt(
  s: DbSession,
  currency: string,
  cutoff: Date,
): Promise<{ circulation: number; platformAccounts: Record<string, number> }> {
  const rows = await s.query<{ account_type: string; balance: string }>(
    `SELECT a.account_type,
            (a.balance - COALESCE((SELECT sum(CASE WHEN l.kind = 'CREDIT' THEN l.amount ELSE -l.amount END)
                                     FROM ledger.ledgers l WHERE l.account_id = a.id AND l.created_at >= $2), 0))::text AS balance
       FROM ledger.accounts a JOIN ledger.wallets w ON w.id = a.wallet_id
      WHERE w.owner_type = 'SYSTEM' AND a.currency = $1
      ORDER BY a.account_type`,
    [currency, cutoff],
  );
  const platformAccounts: Record<string, number> = {};
  let total = 0n;
  for (const r of rows) {
    platformAccounts[r.account_type] = toMoney(r.balance);
    total += BigInt(r.balance);
  }
  return { circulation: toMoney((-total).toString()), platformAccounts };
}
