CREATE OR REPLACE FUNCTION ledger.chain_record_is_final()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        RAISE EXCEPTION '%.% is append-only: % operation forbidden', TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation';
      END $function$;
