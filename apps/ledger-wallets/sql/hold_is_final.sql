CREATE OR REPLACE FUNCTION ledger.hold_is_final()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        IF OLD.status <> 'ACTIVE' THEN
          RAISE EXCEPTION 'ledger.holds % is released and final: UPDATE operation forbidden', OLD.id USING ERRCODE = 'restrict_violation';
        END IF;
        IF (to_jsonb(NEW) - ARRAY['status', 'released_by', 'released_roles', 'release_requested_by', 'release_key', 'release_reason', 'released_at'])
           <> (to_jsonb(OLD) - ARRAY['status', 'released_by', 'released_roles', 'release_requested_by', 'release_key', 'release_reason', 'released_at']) THEN
          RAISE EXCEPTION 'ledger.holds %: what was placed never changes', OLD.id USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
      END $function$;
