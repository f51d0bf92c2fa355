CREATE OR REPLACE FUNCTION ledger.bank_statement_follows()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      DECLARE last ledger.bank_statements;
      BEGIN
        SELECT * INTO last FROM ledger.bank_statements WHERE account = NEW.account ORDER BY closing_date DESC, imported_at DESC LIMIT 1;
        IF FOUND AND (NEW.opening_balance <> last.closing_balance OR NEW.opening_date < last.closing_date
                      OR NEW.closing_date <= last.closing_date) THEN
          RAISE EXCEPTION 'bank statement % of account % does not follow statement %', NEW.statement_ref, NEW.account, last.statement_ref
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_bank_statements_order';
        END IF;
        RETURN NEW;
      END $function$;
