CREATE OR REPLACE FUNCTION ledger.forbid_truncate()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        RAISE EXCEPTION '%.% is append-only: TRUNCATE operation forbidden', TG_TABLE_SCHEMA, TG_TABLE_NAME
          USING ERRCODE = 'restrict_violation';
      END $function$;
