CREATE OR REPLACE FUNCTION ledger.reconciliation_alert_has_key()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM ledger.reconciliation_alert_keys WHERE alert_id = NEW.id) THEN
          RAISE EXCEPTION 'reconciliation alert % has no difference key', NEW.id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alerts_key';
        END IF;
        RETURN NULL;
      END $function$;
