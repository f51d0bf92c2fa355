CREATE OR REPLACE FUNCTION ledger.forget_balanced_transaction()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'ledger', 'pg_temp'
AS $function$
      DECLARE memo text;
      BEGIN
        PERFORM nextval('ledger.balance_memo_generation');
        memo := set_config('ledger.balanced_transaction', '', true);
        RETURN NULL;
      END $function$;
