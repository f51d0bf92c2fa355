CREATE OR REPLACE FUNCTION ledger.reconciliation_decision_allowed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      DECLARE alert ledger.reconciliation_alerts; fix ledger.corrections; expected bigint; effect bigint;
      BEGIN
        IF NEW.stage = 2 AND NOT EXISTS (
             SELECT 1 FROM ledger.reconciliation_alert_decisions WHERE alert_id = NEW.alert_id AND stage = 1) THEN
          RAISE EXCEPTION 'reconciliation alert % is resolved before it is acknowledged', NEW.alert_id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alert_decisions_order';
        END IF;
        IF NEW.correction_id IS NULL THEN
          RETURN NEW;
        END IF;
        SELECT * INTO fix FROM ledger.corrections c WHERE c.id = NEW.correction_id;
        IF NOT FOUND OR fix.status <> 'EXECUTED' OR fix.checker_id IS NULL OR fix.checker_id = fix.maker_id THEN
          RAISE EXCEPTION 'correction % is not an executed four-eyes correction', NEW.correction_id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alert_decisions_four_eyes';
        END IF;
        SELECT * INTO alert FROM ledger.reconciliation_alerts a WHERE a.id = NEW.alert_id;
        IF fix.submitted_at < alert.created_at THEN
          RAISE EXCEPTION 'correction % was submitted before alert % was raised', NEW.correction_id, NEW.alert_id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alert_decisions_correction_time';
        END IF;
        -- signed as the bank sees it: positive is money the trust account should receive
        expected := CASE alert.kind
          WHEN 'BALANCE_GAP' THEN alert.amount
          WHEN 'UNMATCHED_BANK_LINE' THEN CASE alert.evidence -> 'line' ->> 'direction' WHEN 'CREDIT' THEN alert.amount ELSE -alert.amount END
          ELSE CASE alert.evidence -> 'movement' ->> 'direction' WHEN 'CREDIT' THEN -alert.amount ELSE alert.amount END
        END;
        SELECT COALESCE(sum(CASE WHEN l.kind = 'DEBIT' THEN l.amount ELSE -l.amount END), 0) INTO effect
          FROM ledger.ledgers l JOIN ledger.accounts a ON a.id = l.account_id JOIN ledger.wallets w ON w.id = a.wallet_id
         WHERE l.transaction_id = fix.transaction_id AND a.account_type = 'suspense' AND w.owner_type = 'SYSTEM'
           AND a.currency = alert.currency;
        IF effect IS DISTINCT FROM expected THEN
          RAISE EXCEPTION 'correction % moves % on the trust account; alert % calls for %', NEW.correction_id, effect, NEW.alert_id, expected
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alert_decisions_correction_fit';
        END IF;
        RETURN NEW;
      END $function$;
