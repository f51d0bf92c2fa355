CREATE OR REPLACE FUNCTION ledger.record_adjustment_accounts()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'ledger', 'pg_temp'
AS $function$
      BEGIN
        INSERT INTO ledger.adjustment_accounts (account_id, transaction_id)
        SELECT DISTINCT account_id, NEW.id FROM ledger.ledgers WHERE transaction_id = NEW.id
        ON CONFLICT DO NOTHING;
        RETURN NULL;
      END $function$;
