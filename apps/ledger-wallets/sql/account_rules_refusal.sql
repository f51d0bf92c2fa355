CREATE OR REPLACE FUNCTION ledger.account_rules_refusal(intent_type text, source_type text, destination_type text, source_wallet uuid, destination_wallet uuid, fee bigint, fee_type text, commission bigint, commission_from_type text, commission_to_type text, commission_to_wallet uuid)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
        -- The accounts an execution may involve (docs/ledger.md, "Execution rules"), the one place they
        -- are written: the confirm (execute_confirm, execute_confirm_batch) asks on the rows it holds
        -- locked, the creation of an intent on the two accounts it names (no fee, no commission yet).
        -- NULL: allowed; otherwise the error code of the first rule broken, in this order.
        SELECT CASE
          -- TRANSFER is peer to peer; CASH_IN: an agent's float pays a customer or merchant; CASH_OUT:
          -- the reverse. Organisation, technical and commission accounts never take part in an intent.
          WHEN NOT coalesce(CASE intent_type
                 WHEN 'TRANSFER' THEN source_type IN ('customer', 'merchant') AND destination_type IN ('customer', 'merchant')
                 WHEN 'CASH_IN' THEN source_type = 'agent' AND destination_type IN ('customer', 'merchant')
                 WHEN 'CASH_OUT' THEN source_type IN ('customer', 'merchant') AND destination_type = 'agent'
               END, false) THEN 'ACCOUNT_TYPE_NOT_ALLOWED'
          -- A fee is credited to FEE_COLLECTION only.
          WHEN fee > 0 AND fee_type IS DISTINCT FROM 'fee_collection' THEN 'FEE_ACCOUNT_NOT_ALLOWED'
          -- A commission exists only on a cash operation (it has an agent float), is debited from
          -- TREASURY and credited to the agent_commission account in the float's own wallet.
          WHEN commission > 0 AND intent_type NOT IN ('CASH_IN', 'CASH_OUT') THEN 'COMMISSION_NOT_ALLOWED'
          WHEN commission > 0 AND commission_from_type IS DISTINCT FROM 'treasury' THEN 'COMMISSION_SOURCE_NOT_ALLOWED'
          WHEN commission > 0 AND (commission_to_type IS DISTINCT FROM 'agent_commission'
               OR commission_to_wallet IS DISTINCT FROM CASE intent_type WHEN 'CASH_IN' THEN source_wallet ELSE destination_wallet END)
            THEN 'COMMISSION_NOT_ALLOWED'
        END
      $function$;
