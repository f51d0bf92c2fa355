CREATE OR REPLACE PROCEDURE ledger.confirm_checked(IN p_lock_keys bigint[], IN p_release_keys bigint[], IN p_lock_timeout_ms integer, IN p_intent_id uuid, IN p_from_statuses text[], IN p_now timestamp with time zone, IN p_account_ids uuid[], IN p_source_id uuid, IN p_destination_id uuid, IN p_amount bigint, IN p_fee bigint, IN p_commission bigint, IN p_currency text, IN p_fee_account_id uuid, IN p_commission_from_id uuid, IN p_commission_to_id uuid, IN p_payee_balance_cap bigint, IN p_rules jsonb, IN p_transaction_id uuid, IN p_reference_id text, IN p_created_by text, IN p_type_code text, IN p_agent_id text, IN p_description text, IN p_extra jsonb, IN p_correlation_id text, IN p_entries jsonb, IN p_deltas jsonb, IN p_actor_id text, IN p_ip text, IN p_user_agent text, IN p_event_metadata jsonb, IN p_outbox_id uuid, IN p_event_type text, IN p_payload jsonb, IN p_idem_scope text, IN p_idem_key text, IN p_idem_hash text, IN p_idem_status integer, IN p_idem_body text, IN p_idem_ttl_hours integer, OUT ok boolean, OUT refusal text, OUT intent json, OUT available text, OUT accounts json, OUT lock_ms double precision, OUT completed_at text)
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
          FROM ledger.execute_confirm(p_intent_id, p_from_statuses, p_now, p_account_ids, p_source_id, p_destination_id, p_amount, p_fee, p_commission, p_currency, p_fee_account_id, p_commission_from_id, p_commission_to_id, p_payee_balance_cap, p_rules, p_transaction_id, p_reference_id, p_created_by, p_type_code, p_agent_id, p_description, p_extra, p_correlation_id, p_entries, p_deltas, p_actor_id, p_ip, p_user_agent, p_event_metadata, p_outbox_id, p_event_type, p_payload, p_idem_scope, p_idem_key, p_idem_hash, p_idem_status, p_idem_body, p_idem_ttl_hours) e;
        COMMIT;
        FOREACH k IN ARRAY p_release_keys LOOP
          PERFORM pg_advisory_unlock(k);
        END LOOP;
      END $procedure$;
