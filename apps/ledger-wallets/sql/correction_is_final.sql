CREATE OR REPLACE FUNCTION ledger.correction_is_final()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        IF OLD.status <> 'PENDING_APPROVAL' AND (
             (to_jsonb(NEW) - 'alerted_at') <> (to_jsonb(OLD) - 'alerted_at') OR OLD.alerted_at IS NOT NULL) THEN
          RAISE EXCEPTION 'ledger.corrections % is % and final: UPDATE operation forbidden', OLD.id, OLD.status
            USING ERRCODE = 'restrict_violation';
        END IF;
        IF (to_jsonb(NEW) - ARRAY['status', 'checker_id', 'checker_roles', 'decided_at', 'decision_reason', 'transaction_id', 'alerted_at'])
           <> (to_jsonb(OLD) - ARRAY['status', 'checker_id', 'checker_roles', 'decided_at', 'decision_reason', 'transaction_id', 'alerted_at']) THEN
          RAISE EXCEPTION 'ledger.corrections %: what the maker submitted never changes', OLD.id USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
      END $function$;
