CREATE OR REPLACE FUNCTION ledger.reconciliation_alert_key_allowed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      DECLARE earlier int; unresolved int;
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM ledger.reconciliation_alerts a JOIN ledger.reconciliation_runs r ON r.id = a.run_id
                        WHERE a.id = NEW.alert_id AND a.kind = NEW.kind AND r.statement_id = NEW.statement_id) THEN
          RAISE EXCEPTION 'the key of reconciliation alert % names another kind or statement', NEW.alert_id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alert_keys_alert';
        END IF;
        SELECT count(*), count(*) FILTER (WHERE NOT EXISTS (
                 SELECT 1 FROM ledger.reconciliation_alert_decisions d WHERE d.alert_id = k.alert_id AND d.stage = 2))
          INTO earlier, unresolved
          FROM ledger.reconciliation_alert_keys k
         WHERE k.statement_id = NEW.statement_id AND k.kind = NEW.kind AND k.evidence_key = NEW.evidence_key;
        IF unresolved > 0 OR NEW.occurrence <> earlier + 1 THEN
          RAISE EXCEPTION 'difference % % of statement % already has an alert that is not resolved', NEW.kind, NEW.evidence_key, NEW.statement_id
            USING ERRCODE = 'unique_violation', CONSTRAINT = 'UQ_reconciliation_alert_keys_difference';
        END IF;
        RETURN NEW;
      END $function$;
