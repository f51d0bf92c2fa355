CREATE OR REPLACE FUNCTION ledger.chain_link(prev bytea, seq bigint, entry_id uuid, transaction_id uuid, account_id uuid, kind text, amount bigint, currency text, counterparty_id uuid, created_at timestamp with time zone, reference_id text, tx_type text, tx_amount bigint, tx_fee bigint, tx_currency text, completed_at timestamp with time zone, intent_id uuid, reversal_of uuid)
 RETURNS bytea
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
        SELECT sha256(convert_to(concat_ws('|', 'ledger-chain:v1', encode(prev, 'hex'), seq, entry_id, transaction_id, account_id, kind,
          amount, currency, counterparty_id, (extract(epoch FROM created_at) * 1000000)::bigint, reference_id, tx_type, tx_amount, tx_fee,
          tx_currency, (extract(epoch FROM completed_at) * 1000000)::bigint, coalesce(intent_id::text, ''), coalesce(reversal_of::text, '')),
          'UTF8'))
      $function$;
