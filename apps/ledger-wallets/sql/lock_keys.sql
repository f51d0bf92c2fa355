CREATE OR REPLACE FUNCTION ledger.lock_keys(keys bigint[], timeout_ms integer)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
      DECLARE k bigint;
      BEGIN
        PERFORM set_config('lock_timeout', timeout_ms || 'ms', true);
        FOREACH k IN ARRAY keys LOOP
          PERFORM pg_advisory_lock(k);
        END LOOP;
      END $function$;
