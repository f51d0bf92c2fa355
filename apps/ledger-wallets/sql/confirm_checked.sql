CREATE OR REPLACE PROCEDURE ledger.confirm_checked(IN p_lock_keys bigint[], IN p_release_keys bigint[], IN p_lock_timeout_ms integer, IN p_call ledger.confirm_call, OUT ok boolean, OUT refusal text, OUT intent json, OUT available text, OUT accounts json, OUT lock_ms double precision, OUT completed_at text)
 LANGUAGE plpgsql
AS $procedure$
      -- No SET clause here: a procedure with one may not COMMIT.
      DECLARE k bigint;
      BEGIN
        -- The advisory locks first, in their own transaction (lock_keys caps each wait).
        PERFORM ledger.lock_keys(p_lock_keys, p_lock_timeout_ms);
        COMMIT;
        -- Nothing has read yet: this transaction's snapshot is taken below, after every lock is held.
        SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;
        PERFORM set_config('lock_timeout', p_lock_timeout_ms || 'ms', true);
        -- Index scans only: a sequential scan would predicate-lock a whole table (ledger-db.service.ts).
        PERFORM set_config('enable_seqscan', 'off', true);
        SELECT e.ok, e.refusal, e.intent, e.available, e.accounts, e.lock_ms, e.completed_at
          INTO ok, refusal, intent, available, accounts, lock_ms, completed_at
          FROM ledger.execute_confirm(p_call) e;
        COMMIT;
        FOREACH k IN ARRAY p_release_keys LOOP
          PERFORM pg_advisory_unlock(k);
        END LOOP;
      END $procedure$;
