CREATE OR REPLACE FUNCTION ledger.forbid_delete()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        RAISE EXCEPTION '%.% rows are never deleted: DELETE operation forbidden on id %', TG_TABLE_SCHEMA, TG_TABLE_NAME, OLD.id
          USING ERRCODE = 'restrict_violation';
      END $function$;
