/**
 * One page of a window: $1 currency, $2 minimum amount, [$3, $4) completion window, ($5, $6) the
 * cursor's (completed_at, reference) or nulls, $7 page size + 1. The range on `t.completed_at` is
 * what lets PostgreSQL read only the window's pages through `IDX_transactions_completed_brin`
 * (docs/regulatory-reports.md "The ledger read"): keep the bare column on the left of the comparisons.
 * Run outside any SERIALIZABLE transaction: a serializable scan of a BRIN index locks the whole index
 * against the payments inserting into it.
 */
export const REGULATORY_OPERATIONS_SQL = `SELECT t.id AS transaction_id, t.reference_id, t.type, t.amount::text, t.fee::text, t.currency,
        to_char(t.completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS completed_key, i.agent_id,
        sa.id AS s_id, sa.account_type AS s_type, sa.holder AS s_holder, sw.owner_type AS s_owner_type, sw.owner_id AS s_owner_id,
        da.id AS d_id, da.account_type AS d_type, da.holder AS d_holder, dw.owner_type AS d_owner_type, dw.owner_id AS d_owner_id
   FROM ledger.transactions t
   JOIN ledger.transaction_intents i ON i.id = t.intent_id
   JOIN ledger.accounts sa ON sa.id = i.source_account_id
   JOIN ledger.wallets sw ON sw.id = sa.wallet_id
   JOIN ledger.accounts da ON da.id = i.destination_account_id
   JOIN ledger.wallets dw ON dw.id = da.wallet_id
  WHERE t.intent_id IS NOT NULL AND t.type IN ('CASH_IN', 'CASH_OUT', 'TRANSFER')
    AND t.currency = $1 AND t.amount >= $2
    AND t.completed_at >= $3::timestamptz AND t.completed_at < $4::timestamptz
    AND ($5::timestamptz IS NULL OR (t.completed_at, t.reference_id) > ($5::timestamptz, $6::text))
  ORDER BY t.completed_at, t.reference_id
  LIMIT $7`;
