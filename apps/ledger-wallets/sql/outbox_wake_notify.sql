CREATE OR REPLACE FUNCTION ledger.outbox_wake_notify()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog'
AS $function$
      BEGIN
        PERFORM pg_notify('ledger_outbox', '');
        RETURN NULL;
      END
      $function$;
