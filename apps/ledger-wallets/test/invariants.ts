import type { Client } from 'pg';

/**
 * The ledger's invariants, read with a superuser connection: what the concurrency and property
 * tests assert after their runs and what `npm run bench:ledger` checks at its end.
 */
export interface Invariants {
  /** accounts whose balance differs from credits − debits */
  ledgerGaps: number;
  /** accounts where available + frozen ≠ balance */
  splitGaps: number;
  /** Σ balances per currency (unchanged by any double-entry movement) */
  totals: Record<string, number>;
  /** SUCCEEDED intents without exactly one transaction, or a transaction on any other intent */
  intentMismatches: number;
  /** transactions whose debits ≠ credits */
  unbalancedTransactions: number;
}

export async function checkInvariants(admin: Client): Promise<Invariants> {
  const gaps = await admin.query(`
    SELECT count(*) FILTER (WHERE a.balance <> COALESCE(l.net, 0))::int AS ledger_gaps,
           count(*) FILTER (WHERE a.balance <> a.available_balance + a.frozen_balance)::int AS split_gaps
    FROM ledger.accounts a
    LEFT JOIN (SELECT account_id, sum(CASE kind WHEN 'CREDIT' THEN amount ELSE -amount END) AS net FROM ledger.ledgers GROUP BY account_id) l
      ON l.account_id = a.id`);
  const totals = await admin.query(`SELECT currency, sum(balance)::text AS total FROM ledger.accounts GROUP BY currency`);
  const intents = await admin.query(`
    SELECT count(*)::int AS n FROM ledger.transaction_intents i
    LEFT JOIN (SELECT intent_id, count(*) AS c FROM ledger.transactions WHERE intent_id IS NOT NULL GROUP BY intent_id) t ON t.intent_id = i.id
    WHERE (i.status = 'SUCCEEDED' AND COALESCE(t.c, 0) <> 1) OR (i.status <> 'SUCCEEDED' AND COALESCE(t.c, 0) <> 0)`);
  const unbalanced = await admin.query(`
    SELECT count(*)::int AS n FROM (SELECT transaction_id FROM ledger.ledgers GROUP BY transaction_id
      HAVING sum(CASE kind WHEN 'CREDIT' THEN amount ELSE -amount END) <> 0) x`);
  return {
    ledgerGaps: gaps.rows[0].ledger_gaps,
    splitGaps: gaps.rows[0].split_gaps,
    totals: Object.fromEntries(totals.rows.map((r) => [String(r.currency).trim(), Number(r.total)])),
    intentMismatches: intents.rows[0].n,
    unbalancedTransactions: unbalanced.rows[0].n,
  };
}
