/**
 * What an attacker who knows the chaining algorithm runs after editing an entry: recompute the
 * account's whole chain (docs/ledger-chain.md) and its head, so that only the anchors can tell.
 * One copy, so that the ledger's and the orchestrator's chain tests tamper the same way.
 */
export function rechainSql(accountId: string): string {
  return `DO $$
       DECLARE r record; head bytea := '\\x${'00'.repeat(32)}'::bytea; n bigint := 0;
       BEGIN
         FOR r IN SELECT l.*, t.reference_id, t.type, t.amount AS tx_amount, t.fee, t.currency AS tx_currency, t.completed_at, t.intent_id, t.reversal_of
                    FROM ledger.ledgers l JOIN ledger.transactions t ON t.id = l.transaction_id
                   WHERE l.account_id = '${accountId}' ORDER BY l.chain_seq LOOP
           n := n + 1;
           UPDATE ledger.ledgers SET chain_seq = n, chain_prev = head,
             chain_hash = ledger.chain_link(head, n, r.id, r.transaction_id, r.account_id, r.kind, r.amount, r.currency::text, r.counterparty_ledger_id,
               r.created_at, r.reference_id, r.type, r.tx_amount, r.fee, r.tx_currency::text, r.completed_at, r.intent_id, r.reversal_of)
           WHERE id = r.id RETURNING chain_hash INTO head;
         END LOOP;
         UPDATE ledger.accounts SET chain_seq = n, chain_head = head WHERE id = '${accountId}';
       END $$`;
}
