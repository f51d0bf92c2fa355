CREATE OR REPLACE FUNCTION ledger.reconciliation_sighting_allowed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM ledger.reconciliation_runs r JOIN ledger.reconciliation_alert_keys k ON k.statement_id = r.statement_id
                         JOIN ledger.reconciliation_alerts a ON a.id = k.alert_id
                        WHERE r.id = NEW.run_id AND k.alert_id = NEW.alert_id AND a.run_id <> NEW.run_id)
           AND NOT EXISTS (
             SELECT 1 FROM ledger.reconciliation_runs r JOIN ledger.bank_statements b ON b.id = r.statement_id,
                           ledger.reconciliation_alert_keys k JOIN ledger.bank_statements kb ON kb.id = k.statement_id
                     WHERE r.id = NEW.run_id AND k.alert_id = NEW.alert_id AND k.kind = 'BALANCE_GAP'
                       AND kb.account = b.account AND kb.closing_date < b.closing_date
                       AND EXISTS (SELECT 1 FROM ledger.reconciliation_alert_decisions d WHERE d.alert_id = k.alert_id AND d.decision = 'ACCEPTED')) THEN
          RAISE EXCEPTION 'run % cannot see alert % again: not an earlier alert of its statement, nor an accepted gap of an earlier statement of its account',
            NEW.run_id, NEW.alert_id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alert_sightings_statement';
        END IF;
        RETURN NEW;
      END $function$;
