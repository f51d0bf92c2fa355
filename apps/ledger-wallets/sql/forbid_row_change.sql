CREATE OR REPLACE FUNCTION ledger.forbid_row_change()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        RAISE EXCEPTION '%.% is append-only: % operation forbidden on id %', TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_OP, OLD.id
          USING ERRCODE = 'restrict_violation';
      END $function$;
