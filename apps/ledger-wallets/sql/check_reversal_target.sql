CREATE OR REPLACE FUNCTION ledger.check_reversal_target()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      DECLARE target ledger.transactions%ROWTYPE;
      BEGIN
        SELECT * INTO target FROM ledger.transactions t WHERE t.id = NEW.reversal_of;
        IF NOT FOUND OR target.reversal_of IS NOT NULL OR target.currency <> NEW.currency OR target.id = NEW.id THEN
          RAISE EXCEPTION 'ledger.transactions %: a reversal must point at an existing transaction of its currency that is not itself a reversal (reversal_of %)',
            NEW.id, NEW.reversal_of
            USING ERRCODE = 'check_violation', SCHEMA = 'ledger', TABLE = 'transactions', CONSTRAINT = 'CHK_transactions_reversal_target';
        END IF;
        RETURN NEW;
      END $function$;
