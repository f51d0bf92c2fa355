import type { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * The confirm checks the payee's balance cap itself, on the destination row it holds locked, and
 * stamps the transaction with the database's clock once every lock is held (docs/ledger.md,
 * "Balance cap" and "completed_at").
 *
 * - `execute_confirm`, its procedure `confirm_checked` and the batch `execute_confirm_batch` take a
 *   cap (`p_payee_balance_cap` / `confirm_call.payee_balance_cap`, NULL: no cap) and refuse with
 *   LIMIT_BALANCE_CAP_EXCEEDED, writing nothing, when the destination's balance after the amount
 *   would exceed it. In a batch the balance is the one the calls accepted before leave.
 * - `p_completed_at` is gone: the functions read `clock_timestamp()` after their locks, answer it
 *   (`completed_at`, ISO 8601 text, milliseconds) and put it in the event (`occurredAt`) and in the
 *   stored idempotent response (the service sends the placeholder string NUL + "completedAt").
 *
 * The signatures and return types change, so the functions are dropped and created again; `down`
 * puts back the texts of migration 1765600700000.
 */

const OLD_CONFIRM =
  'ledger.execute_confirm(uuid, text[], timestamptz, uuid[], uuid, uuid, bigint, bigint, bigint, text, uuid, uuid, uuid, jsonb, uuid, text, timestamptz, text, text, text, text, jsonb, text, jsonb, jsonb, text, text, text, jsonb, uuid, text, jsonb, text, text, text, integer, text, integer)';
const NEW_CONFIRM =
  'ledger.execute_confirm(uuid, text[], timestamptz, uuid[], uuid, uuid, bigint, bigint, bigint, text, uuid, uuid, uuid, bigint, jsonb, uuid, text, text, text, text, text, jsonb, text, jsonb, jsonb, text, text, text, jsonb, uuid, text, jsonb, text, text, text, integer, text, integer)';
const OLD_PROCEDURE = `ledger.confirm_checked(bigint[], bigint[], integer, ${OLD_CONFIRM.slice('ledger.execute_confirm('.length, -1)})`;
const NEW_PROCEDURE = `ledger.confirm_checked(bigint[], bigint[], integer, ${NEW_CONFIRM.slice('ledger.execute_confirm('.length, -1)})`;

export class PayeeBalanceCap1765601200000 implements MigrationInterface {
  name = 'PayeeBalanceCap1765601200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP PROCEDURE ${OLD_PROCEDURE}`);
    await q.query(`DROP FUNCTION ${OLD_CONFIRM}`);
    await q.query(`DROP FUNCTION ledger.execute_confirm_batch(jsonb, jsonb)`);
    await q.query(`DROP TYPE ledger.confirm_call`);
    await q.query(confirmCallType(['commission_to_id uuid', 'payee_balance_cap bigint'], ['reference_id text']));
    await q.query(CONFIRM);
    await q.query(PROCEDURE);
    await q.query(BATCH);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP PROCEDURE ${NEW_PROCEDURE}`);
    await q.query(`DROP FUNCTION ${NEW_CONFIRM}`);
    await q.query(`DROP FUNCTION ledger.execute_confirm_batch(jsonb, jsonb)`);
    await q.query(`DROP TYPE ledger.confirm_call`);
    await q.query(confirmCallType(['commission_to_id uuid'], ['reference_id text', 'completed_at timestamptz']));
    await q.query(OLD_CONFIRM_TEXT);
    await q.query(OLD_PROCEDURE_TEXT);
    await q.query(OLD_BATCH_TEXT);
  }
}

/**
 * `ledger.confirm_call`: `execute_confirm`'s parameters without their `p_` and without the rules,
 * in the same order (the batch reads them by name; a test compares the order).
 */
function confirmCallType(throughCommissionTo: string[], throughReference: string[]): string {
  return `CREATE TYPE ledger.confirm_call AS (
    intent_id uuid, from_statuses text[], now timestamptz, account_ids uuid[], source_id uuid,
    destination_id uuid, amount bigint, fee bigint, commission bigint, currency text, fee_account_id uuid,
    commission_from_id uuid, ${throughCommissionTo.join(', ')}, transaction_id uuid, ${throughReference.join(', ')},
    created_by text, type_code text, agent_id text, description text, extra jsonb,
    correlation_id text, entries jsonb, deltas jsonb, actor_id text, ip text, user_agent text,
    event_metadata jsonb, outbox_id uuid, event_type text, payload jsonb, idem_scope text, idem_key text,
    idem_hash text, idem_status int, idem_body text, idem_ttl_hours int)`;
}

export const CONFIRM = String.raw`
CREATE OR REPLACE FUNCTION ledger.execute_confirm(p_intent_id uuid, p_from_statuses text[], p_now timestamp with time zone, p_account_ids uuid[], p_source_id uuid, p_destination_id uuid, p_amount bigint, p_fee bigint, p_commission bigint, p_currency text, p_fee_account_id uuid, p_commission_from_id uuid, p_commission_to_id uuid, p_payee_balance_cap bigint, p_rules jsonb, p_transaction_id uuid, p_reference_id text, p_created_by text, p_type_code text, p_agent_id text, p_description text, p_extra jsonb, p_correlation_id text, p_entries jsonb, p_deltas jsonb, p_actor_id text, p_ip text, p_user_agent text, p_event_metadata jsonb, p_outbox_id uuid, p_event_type text, p_payload jsonb, p_idem_scope text, p_idem_key text, p_idem_hash text, p_idem_status integer, p_idem_body text, p_idem_ttl_hours integer)
 RETURNS TABLE(ok boolean, refusal text, intent json, available text, accounts json, lock_ms double precision, completed_at text)
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
      DECLARE
        v_i ledger.transaction_intents%ROWTYPE;
        v_found int;
        v_available bigint;
        v_dst_balance bigint;
        v_completed_at timestamptz;
        v_completed_text text;
        v_accounts json;
        v_other_currency boolean;
        v_src_type text; v_src_wallet uuid;
        v_dst_type text; v_dst_wallet uuid;
        v_fee_type text;
        v_cfrom_type text;
        v_cto_type text; v_cto_wallet uuid;
        v_rule jsonb;
        v_agent_wallet uuid;
        v_refusal text;
        v_lock_ms double precision;
        v_created_by text;
        v_type_code text;
        v_agent_id text;
        v_a_id uuid[];
        v_a_seq bigint[];
        v_a_head bytea[];
        m_chain int;
        j_chain int;
        v_entry jsonb;
        e_id uuid[] := '{}'; e_tx uuid[] := '{}'; e_account uuid[] := '{}'; e_kind text[] := '{}'; e_amount bigint[] := '{}';
        e_currency text[] := '{}'; e_counterparty uuid[] := '{}'; e_created_by text[] := '{}'; e_created_at timestamptz[] := '{}';
        e_seq bigint[] := '{}'; e_prev bytea[] := '{}'; e_hash bytea[] := '{}';
      BEGIN
        SELECT * INTO v_i FROM ledger.transaction_intents i WHERE i.id = p_intent_id FOR UPDATE;
        IF NOT FOUND THEN v_refusal := 'INTENT_NOT_FOUND';
        ELSIF NOT (v_i.status = ANY (p_from_statuses)) THEN v_refusal := 'INVALID_INTENT_TRANSITION';
        -- In whole milliseconds, as the service's clock and every other expiry check read it.
        ELSIF date_trunc('milliseconds', v_i.expires_at) <= p_now THEN v_refusal := 'INTENT_EXPIRED';
        ELSIF v_i.source_account_id <> p_source_id OR v_i.destination_account_id <> p_destination_id
           OR v_i.amount <> p_amount OR v_i.currency::text <> p_currency THEN v_refusal := 'EXECUTION_CONTEXT_MISMATCH';
        END IF;
        IF v_refusal IS NOT NULL THEN
          v_lock_ms := extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000;
          RETURN QUERY SELECT false, v_refusal, CASE WHEN v_i.id IS NULL THEN NULL ELSE row_to_json(v_i) END, NULL::text, NULL::json, v_lock_ms, NULL::text;
          RETURN;
        END IF;

        SELECT count(*), max(a.available_balance) FILTER (WHERE a.id = p_source_id), max(a.balance) FILTER (WHERE a.id = p_destination_id),
               bool_or(a.currency <> v_i.currency),
               (array_agg(a.account_type) FILTER (WHERE a.id = p_source_id))[1], (array_agg(a.wallet_id) FILTER (WHERE a.id = p_source_id))[1],
               (array_agg(a.account_type) FILTER (WHERE a.id = p_destination_id))[1], (array_agg(a.wallet_id) FILTER (WHERE a.id = p_destination_id))[1],
               (array_agg(a.account_type) FILTER (WHERE a.id = p_fee_account_id))[1],
               (array_agg(a.account_type) FILTER (WHERE a.id = p_commission_from_id))[1],
               (array_agg(a.account_type) FILTER (WHERE a.id = p_commission_to_id))[1], (array_agg(a.wallet_id) FILTER (WHERE a.id = p_commission_to_id))[1],
               array_agg(a.id ORDER BY a.id), array_agg(a.chain_seq ORDER BY a.id), array_agg(a.chain_head ORDER BY a.id)
          INTO v_found, v_available, v_dst_balance, v_other_currency, v_src_type, v_src_wallet, v_dst_type, v_dst_wallet,
               v_fee_type, v_cfrom_type, v_cto_type, v_cto_wallet, v_a_id, v_a_seq, v_a_head
          FROM (SELECT x.id, x.account_type, x.wallet_id, x.currency, x.balance, x.available_balance, x.chain_seq, x.chain_head FROM ledger.accounts x
                WHERE x.id = ANY (p_account_ids) ORDER BY x.id FOR UPDATE) a;
        -- From the round trip's arrival to every lock held: the lock wait, reported in Server-Timing.
        v_lock_ms := extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000;

        -- execution-rules.ts, read from p_rules (checkExecutionAccounts, same order).
        v_rule := p_rules -> 'intents' -> v_i.type;
        v_agent_wallet := CASE v_rule ->> 'agent' WHEN 'source' THEN v_src_wallet WHEN 'destination' THEN v_dst_wallet END;
        IF v_found <> cardinality(p_account_ids) THEN v_refusal := 'ACCOUNT_NOT_FOUND';
        ELSIF v_other_currency THEN v_refusal := 'CURRENCY_MISMATCH';
        ELSIF v_rule IS NULL OR NOT ((v_rule -> 'source') ? v_src_type) OR NOT ((v_rule -> 'destination') ? v_dst_type) THEN
          v_refusal := 'ACCOUNT_TYPE_NOT_ALLOWED';
        ELSIF p_fee > 0 AND v_fee_type IS DISTINCT FROM p_rules -> 'slots' ->> 'fee' THEN v_refusal := 'FEE_ACCOUNT_NOT_ALLOWED';
        ELSIF p_commission > 0 AND v_rule ->> 'agent' IS NULL THEN v_refusal := 'COMMISSION_NOT_ALLOWED';
        ELSIF p_commission > 0 AND v_cfrom_type IS DISTINCT FROM p_rules -> 'slots' ->> 'commissionFrom' THEN
          v_refusal := 'COMMISSION_SOURCE_NOT_ALLOWED';
        ELSIF p_commission > 0 AND (v_cto_type IS DISTINCT FROM p_rules -> 'slots' ->> 'commissionTo' OR v_cto_wallet IS DISTINCT FROM v_agent_wallet) THEN
          v_refusal := 'COMMISSION_NOT_ALLOWED';
        -- Step 3: the hold goes back to available, then amount + fee must fit.
        ELSIF v_available + v_i.frozen_amount < p_amount + p_fee THEN v_refusal := 'INSUFFICIENT_BALANCE';
        -- The payee's balance cap, on the locked row: two credits to one account cannot both pass it.
        ELSIF p_payee_balance_cap IS NOT NULL AND v_dst_balance + p_amount > p_payee_balance_cap THEN
          v_refusal := 'LIMIT_BALANCE_CAP_EXCEEDED';
        END IF;
        IF v_refusal IS NOT NULL THEN
          -- The accounts as locked, for the service's message (built only on a refusal).
          SELECT json_agg(json_build_object('id', x.id, 'account_type', x.account_type, 'wallet_id', x.wallet_id, 'currency', x.currency) ORDER BY x.id)
            INTO v_accounts FROM ledger.accounts x WHERE x.id = ANY (p_account_ids);
          RETURN QUERY SELECT false, v_refusal, row_to_json(v_i), v_available::text, v_accounts, v_lock_ms, NULL::text;
          RETURN;
        END IF;

        -- The time of the transaction, read once every lock is held: the COMMIT follows in the same
        -- round trip, with no application code in between (docs/ledger.md, "completed_at").
        v_completed_at := date_trunc('milliseconds', clock_timestamp());
        v_completed_text := to_char(v_completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');

        -- The intent's own values where the context leaves them out.
        v_created_by := coalesce(p_created_by, v_i.initiated_by);
        v_type_code := coalesce(p_type_code, v_i.type);
        v_agent_id := coalesce(p_agent_id, v_i.agent_id);

        INSERT INTO ledger.transactions (id, reference_id, type, intent_id, amount, fee, currency, created_by, initiated_at, completed_at, metadata)
        VALUES (p_transaction_id, p_reference_id, v_i.type, p_intent_id, p_amount, p_fee, p_currency, v_created_by, v_i.created_at,
          v_completed_at,
          jsonb_build_object('typeCode', v_type_code, 'agentId', v_agent_id, 'correlationId', p_correlation_id, 'intentId', v_i.id,
            'description', coalesce(p_description, v_i.description))
          || CASE WHEN p_extra IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('extra', p_extra) END);

        FOR m_chain IN 0 .. coalesce(jsonb_array_length(p_entries), 0) - 1 LOOP
            v_entry := p_entries -> m_chain;
            j_chain := array_position(v_a_id, (v_entry ->> 'account_id')::uuid);
            IF j_chain IS NULL OR NOT (p_deltas @> jsonb_build_array(jsonb_build_object('id', v_entry ->> 'account_id'))) THEN
              RAISE EXCEPTION 'ledger.execute_confirm: entry % is on account %, which the call does not lock and update', m_chain, v_entry ->> 'account_id';
            END IF;
            v_a_seq[j_chain] := v_a_seq[j_chain] + 1;
            e_id := e_id || (v_entry ->> 'id')::uuid;
            e_tx := e_tx || p_transaction_id;
            e_account := e_account || (v_entry ->> 'account_id')::uuid;
            e_kind := e_kind || (v_entry ->> 'kind');
            e_amount := e_amount || (v_entry ->> 'amount')::bigint;
            e_currency := e_currency || p_currency::text;
            e_counterparty := e_counterparty || (v_entry ->> 'counterparty_id')::uuid;
            e_created_by := e_created_by || v_created_by;
            e_created_at := e_created_at || v_completed_at;
            e_seq := e_seq || v_a_seq[j_chain];
            e_prev := e_prev || v_a_head[j_chain];
            v_a_head[j_chain] := ledger.chain_link(v_a_head[j_chain], v_a_seq[j_chain], (v_entry ->> 'id')::uuid, p_transaction_id,
              (v_entry ->> 'account_id')::uuid, v_entry ->> 'kind', (v_entry ->> 'amount')::bigint, p_currency::text,
              (v_entry ->> 'counterparty_id')::uuid, v_completed_at, p_reference_id, v_i.type, p_amount, p_fee, p_currency::text,
              v_completed_at, p_intent_id, NULL);
            e_hash := e_hash || v_a_head[j_chain];
          END LOOP;
        INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by, created_at,
                                     chain_seq, chain_prev, chain_hash)
          SELECT e.id, e.tx, e.account_id, e.kind, e.amount, e.currency, e.counterparty_id, e.created_by, e.created_at, e.seq, e.prev, e.hash
            FROM unnest(e_id, e_tx, e_account, e_kind, e_amount, e_currency, e_counterparty, e_created_by, e_created_at, e_seq, e_prev, e_hash)
                 AS e (id, tx, account_id, kind, amount, currency, counterparty_id, created_by, created_at, seq, prev, hash);

        -- The entries' deltas, and the hold released on the source (p_deltas always has a row for it).
        UPDATE ledger.accounts a
           SET balance = a.balance + d.balance,
               available_balance = a.available_balance + d.available + CASE WHEN a.id = p_source_id THEN v_i.frozen_amount ELSE 0 END,
               frozen_balance = a.frozen_balance + d.frozen - CASE WHEN a.id = p_source_id THEN v_i.frozen_amount ELSE 0 END,
               updated_at = v_completed_at,
               chain_seq = coalesce(v_a_seq[array_position(v_a_id, a.id)], a.chain_seq),
               chain_head = coalesce(v_a_head[array_position(v_a_id, a.id)], a.chain_head)
          FROM jsonb_to_recordset(p_deltas) AS d (id uuid, balance bigint, available bigint, frozen bigint)
         WHERE a.id = d.id;

        UPDATE ledger.transaction_intents i
           SET status = 'SUCCEEDED', transaction_id = p_transaction_id, fee = p_fee, updated_at = v_completed_at
         WHERE i.id = p_intent_id;

        INSERT INTO ledger.intent_events (intent_id, from_status, to_status, event, actor_id, ip_address, user_agent, metadata, created_at)
        VALUES (p_intent_id, v_i.status, 'SUCCEEDED', 'transaction_completed', p_actor_id, p_ip, p_user_agent, p_event_metadata, v_completed_at);

        DELETE FROM ledger.intent_qr_locks l WHERE l.intent_id = p_intent_id;

        INSERT INTO ledger.outbox (id, event_type, aggregate_id, payload, created_at)
        VALUES (p_outbox_id, p_event_type, p_transaction_id,
          p_payload || jsonb_build_object('intentType', v_i.type, 'qrToken', v_i.qr_token, 'createdBy', v_created_by,
            'typeCode', v_type_code, 'agentId', v_agent_id, 'occurredAt', v_completed_text),
          v_completed_at);

        -- The idempotent response, in the same transaction as the effect (json: a replay returns these bytes).
        IF p_idem_key IS NOT NULL THEN
          INSERT INTO ledger.idempotency_keys AS k (scope, key, request_hash, response_status, response_body, expires_at)
          VALUES (p_idem_scope, p_idem_key, p_idem_hash, p_idem_status, replace(p_idem_body, '"\u0000completedAt"', to_json(v_completed_text)::text)::json, now() + make_interval(hours => p_idem_ttl_hours))
          ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash,
            response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
            created_at = now(), expires_at = EXCLUDED.expires_at
          WHERE k.expires_at <= now();
        END IF;

        RETURN QUERY SELECT true, NULL::text, row_to_json(v_i), (v_available + v_i.frozen_amount - p_amount - p_fee)::text, NULL::json, v_lock_ms, v_completed_text;
      END $function$`;

export const PROCEDURE = String.raw`
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
      END $procedure$`;

export const BATCH = String.raw`
CREATE OR REPLACE FUNCTION ledger.execute_confirm_batch(p_rules jsonb, p_calls jsonb)
 RETURNS TABLE(ok boolean, refusal text, intent json, available text, accounts json, lock_ms double precision, completed_at text)
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
 SET enable_bitmapscan TO 'off'
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
      DECLARE
        v_calls ledger.confirm_call[];
        c ledger.confirm_call;
        n int;
        j int;
        k int;
        m int;
        v_id uuid;
        v_seen int[];
        v_want uuid[];
        -- the intents, locked, as the calls judged so far leave them
        v_intent_ids uuid[];
        v_intents ledger.transaction_intents[];
        v_i ledger.transaction_intents;
        -- the accounts, locked, as the calls judged so far leave them
        a_id uuid[]; a_type text[]; a_wallet uuid[]; a_currency bpchar[];
        a_balance bigint[]; a_available bigint[]; a_frozen bigint[];
        -- when the last accepted call touching the account completed (NULL: untouched)
        a_updated timestamptz[];
        a_seq bigint[]; a_head bytea[]; a_chained boolean[];
        m_chain int;
        j_chain int;
        v_entry jsonb;
        e_id uuid[] := '{}'; e_tx uuid[] := '{}'; e_account uuid[] := '{}'; e_kind text[] := '{}'; e_amount bigint[] := '{}';
        e_currency text[] := '{}'; e_counterparty uuid[] := '{}'; e_created_by text[] := '{}'; e_created_at timestamptz[] := '{}';
        e_seq bigint[] := '{}'; e_prev bytea[] := '{}'; e_hash bytea[] := '{}';
        -- one call's checks (execute_confirm's variables)
        v_found int;
        v_available bigint;
        v_other_currency boolean;
        v_src_type text; v_src_wallet uuid;
        v_dst_type text; v_dst_wallet uuid;
        v_fee_type text;
        v_cfrom_type text;
        v_cto_type text; v_cto_wallet uuid;
        v_rule jsonb;
        v_agent_wallet uuid;
        v_refusal text;
        v_delta jsonb;
        v_hold bigint;
        v_lock_ms double precision;
        v_completed_at timestamptz;
        v_completed_text text;
        v_dst_balance bigint;
        -- the answers, one per call, and the accepted calls with their intents before the move
        r_ok boolean[] := '{}';
        r_refusal text[] := '{}';
        r_intent json[] := '{}';
        r_available text[] := '{}';
        r_accounts json[] := '{}';
        w_calls ledger.confirm_call[] := '{}';
        w_intents ledger.transaction_intents[] := '{}';
        v_max constant bigint := 9007199254740991;
      BEGIN
        v_calls := ARRAY(SELECT jsonb_populate_record(NULL::ledger.confirm_call, e.value)
                           FROM jsonb_array_elements(p_calls) WITH ORDINALITY AS e ORDER BY e.ordinality);

        -- The intents are locked by an UPDATE that changes nothing, not by SELECT … FOR UPDATE. A
        -- SERIALIZABLE transaction that reads more than two rows of one page before writing them
        -- holds a read lock on the whole page until it ends, and a concurrent write to that page
        -- then fails one of them with 40001; a row it writes right after reading it keeps no read
        -- lock. The UPDATE takes the row lock PostgreSQL gives a write that keeps the key (FOR NO KEY
        -- UPDATE): every other writer of the row waits, as with FOR UPDATE; only a foreign-key check
        -- of a row inserted for this intent elsewhere does not, and those paths hold the intent's
        -- advisory lock. Read first, the intents of groups of random confirms at c = 32 sent 30 % of the
        -- grouped confirms back to run alone, against 7 % this way (as with one call per confirm).
        -- The accounts keep SELECT … FOR UPDATE: written twice, each account's second UPDATE would
        -- check its wallet's foreign key again, and their pages caused few of those failures.
        -- Index scans (no bitmap scan: the function's SET) on "= ANY (array)": ascending ids.
        v_want := ARRAY(SELECT x.intent_id FROM unnest(v_calls) x);
        WITH locked AS (
          UPDATE ledger.transaction_intents t SET updated_at = t.updated_at WHERE t.id = ANY (v_want) RETURNING t)
        SELECT coalesce(array_agg((l.t).id ORDER BY (l.t).id), '{}'), coalesce(array_agg(l.t ORDER BY (l.t).id), '{}')
          INTO v_intent_ids, v_intents
          FROM locked l;
        v_want := ARRAY(SELECT unnest(x.account_ids) FROM unnest(v_calls) x);
        SELECT coalesce(array_agg(a.id ORDER BY a.id), '{}'), coalesce(array_agg(a.account_type ORDER BY a.id), '{}'),
               coalesce(array_agg(a.wallet_id ORDER BY a.id), '{}'), coalesce(array_agg(a.currency ORDER BY a.id), '{}'),
               coalesce(array_agg(a.balance ORDER BY a.id), '{}'), coalesce(array_agg(a.available_balance ORDER BY a.id), '{}'),
               coalesce(array_agg(a.frozen_balance ORDER BY a.id), '{}'),
               coalesce(array_agg(a.chain_seq ORDER BY a.id), '{}'), coalesce(array_agg(a.chain_head ORDER BY a.id), '{}')
          INTO a_id, a_type, a_wallet, a_currency, a_balance, a_available, a_frozen, a_seq, a_head
          FROM (SELECT x.id, x.account_type, x.wallet_id, x.currency, x.balance, x.available_balance, x.frozen_balance, x.chain_seq, x.chain_head
                  FROM ledger.accounts x
                 WHERE x.id = ANY (v_want) ORDER BY x.id FOR UPDATE) a;
        a_updated := array_fill(NULL::timestamptz, ARRAY[cardinality(a_id)]);
        a_chained := array_fill(false, ARRAY[cardinality(a_id)]);
        -- From the statement's arrival to every lock held, reported in Server-Timing.
        v_lock_ms := extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000;
        -- One time for every call of the batch, read once every lock is held: the COMMIT follows in
        -- the same round trip (docs/ledger.md, "completed_at").
        v_completed_at := date_trunc('milliseconds', clock_timestamp());
        v_completed_text := to_char(v_completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');

        FOR n IN 1 .. coalesce(cardinality(v_calls), 0) LOOP
          c := v_calls[n];
          v_refusal := NULL;
          k := array_position(v_intent_ids, c.intent_id);
          IF k IS NULL THEN v_i := NULL; v_refusal := 'INTENT_NOT_FOUND';
          ELSE
            v_i := v_intents[k];
            IF NOT (v_i.status = ANY (c.from_statuses)) THEN v_refusal := 'INVALID_INTENT_TRANSITION';
            ELSIF date_trunc('milliseconds', v_i.expires_at) <= c.now THEN v_refusal := 'INTENT_EXPIRED';
            ELSIF v_i.source_account_id <> c.source_id OR v_i.destination_account_id <> c.destination_id
               OR v_i.amount <> c.amount OR v_i.currency::text <> c.currency THEN v_refusal := 'EXECUTION_CONTEXT_MISMATCH';
            END IF;
          END IF;
          IF v_refusal IS NOT NULL THEN
            r_ok := r_ok || false; r_refusal := r_refusal || v_refusal; r_available := r_available || NULL::text;
            r_intent := r_intent || CASE WHEN v_i.id IS NULL THEN NULL ELSE row_to_json(v_i) END; r_accounts := r_accounts || NULL::json;
            CONTINUE;
          END IF;

          -- execute_confirm's aggregate over the call's locked accounts (one row per distinct account).
          v_found := 0; v_seen := '{}'; v_other_currency := NULL; v_available := NULL; v_dst_balance := NULL;
          v_src_type := NULL; v_src_wallet := NULL; v_dst_type := NULL; v_dst_wallet := NULL;
          v_fee_type := NULL; v_cfrom_type := NULL; v_cto_type := NULL; v_cto_wallet := NULL;
          FOREACH v_id IN ARRAY coalesce(c.account_ids, '{}') LOOP
            j := array_position(a_id, v_id);
            CONTINUE WHEN j IS NULL OR j = ANY (v_seen);
            v_seen := v_seen || j;
            v_found := v_found + 1;
            v_other_currency := coalesce(v_other_currency, false) OR a_currency[j] <> v_i.currency;
            IF a_id[j] = c.source_id THEN v_available := a_available[j]; v_src_type := a_type[j]; v_src_wallet := a_wallet[j]; END IF;
            IF a_id[j] = c.destination_id THEN v_dst_type := a_type[j]; v_dst_wallet := a_wallet[j]; v_dst_balance := a_balance[j]; END IF;
            IF a_id[j] = c.fee_account_id THEN v_fee_type := a_type[j]; END IF;
            IF a_id[j] = c.commission_from_id THEN v_cfrom_type := a_type[j]; END IF;
            IF a_id[j] = c.commission_to_id THEN v_cto_type := a_type[j]; v_cto_wallet := a_wallet[j]; END IF;
          END LOOP;

          -- execute_confirm's checks, word for word.
          v_rule := p_rules -> 'intents' -> v_i.type;
          v_agent_wallet := CASE v_rule ->> 'agent' WHEN 'source' THEN v_src_wallet WHEN 'destination' THEN v_dst_wallet END;
          IF v_found <> cardinality(c.account_ids) THEN v_refusal := 'ACCOUNT_NOT_FOUND';
          ELSIF v_other_currency THEN v_refusal := 'CURRENCY_MISMATCH';
          ELSIF v_rule IS NULL OR NOT ((v_rule -> 'source') ? v_src_type) OR NOT ((v_rule -> 'destination') ? v_dst_type) THEN
            v_refusal := 'ACCOUNT_TYPE_NOT_ALLOWED';
          ELSIF c.fee > 0 AND v_fee_type IS DISTINCT FROM p_rules -> 'slots' ->> 'fee' THEN v_refusal := 'FEE_ACCOUNT_NOT_ALLOWED';
          ELSIF c.commission > 0 AND v_rule ->> 'agent' IS NULL THEN v_refusal := 'COMMISSION_NOT_ALLOWED';
          ELSIF c.commission > 0 AND v_cfrom_type IS DISTINCT FROM p_rules -> 'slots' ->> 'commissionFrom' THEN
            v_refusal := 'COMMISSION_SOURCE_NOT_ALLOWED';
          ELSIF c.commission > 0 AND (v_cto_type IS DISTINCT FROM p_rules -> 'slots' ->> 'commissionTo' OR v_cto_wallet IS DISTINCT FROM v_agent_wallet) THEN
            v_refusal := 'COMMISSION_NOT_ALLOWED';
          ELSIF v_available + v_i.frozen_amount < c.amount + c.fee THEN v_refusal := 'INSUFFICIENT_BALANCE';
          -- The destination's balance as the calls accepted before this one leave it.
          ELSIF c.payee_balance_cap IS NOT NULL AND v_dst_balance + c.amount > c.payee_balance_cap THEN
            v_refusal := 'LIMIT_BALANCE_CAP_EXCEEDED';
          END IF;
          IF v_refusal IS NOT NULL THEN
            r_ok := r_ok || false; r_refusal := r_refusal || v_refusal; r_available := r_available || v_available::text;
            r_intent := r_intent || row_to_json(v_i);
            -- The same statement as execute_confirm's: these columns are not written by a confirm.
            r_accounts := r_accounts || (SELECT json_agg(json_build_object('id', x.id, 'account_type', x.account_type, 'wallet_id', x.wallet_id, 'currency', x.currency) ORDER BY x.id)
                                           FROM ledger.accounts x WHERE x.id = ANY (c.account_ids));
            CONTINUE;
          END IF;

          r_ok := r_ok || true; r_refusal := r_refusal || NULL::text; r_accounts := r_accounts || NULL::json;
          r_intent := r_intent || row_to_json(v_i);
          r_available := r_available || (v_available + v_i.frozen_amount - c.amount - c.fee)::text;
          w_calls := w_calls || c;
          w_intents := w_intents || v_i;

          -- The call's UPDATE of its accounts (deltas, and the hold back on the source), in memory.
          v_seen := '{}';
          FOR m IN 0 .. coalesce(jsonb_array_length(c.deltas), 0) - 1 LOOP
            v_delta := c.deltas -> m;
            j := array_position(a_id, (v_delta ->> 'id')::uuid);
            IF j IS NULL OR NOT (a_id[j] = ANY (c.account_ids)) OR j = ANY (v_seen) THEN
              RAISE EXCEPTION 'ledger.execute_confirm_batch: call % has a delta it cannot apply as execute_confirm would (account %)', n, v_delta ->> 'id';
            END IF;
            v_seen := v_seen || j;
            v_hold := CASE WHEN a_id[j] = c.source_id THEN v_i.frozen_amount ELSE 0 END;
            a_balance[j] := a_balance[j] + (v_delta ->> 'balance')::bigint;
            a_available[j] := a_available[j] + (v_delta ->> 'available')::bigint + v_hold;
            a_frozen[j] := a_frozen[j] + (v_delta ->> 'frozen')::bigint - v_hold;
            a_updated[j] := v_completed_at;
            -- What the UPDATE's CHECK constraints (CHK_accounts_*) would refuse after this call.
            IF NOT (a_balance[j] = a_available[j] + a_frozen[j] AND a_frozen[j] >= 0 AND a_frozen[j] <= v_max
                    AND a_balance[j] BETWEEN -v_max AND v_max AND a_available[j] BETWEEN -v_max AND v_max
                    AND ((a_available[j] >= 0 AND a_balance[j] >= 0) OR a_type[j] IN ('treasury', 'suspense'))) THEN
              RAISE EXCEPTION 'ledger.execute_confirm_batch: call % would break a constraint of account %', n, a_id[j]
                USING ERRCODE = 'check_violation', SCHEMA = 'ledger', TABLE = 'accounts';
            END IF;
          END LOOP;

          -- The call's entries, each linked to the one before it on its account (the heads as the earlier calls left them).
          FOR m_chain IN 0 .. coalesce(jsonb_array_length(c.entries), 0) - 1 LOOP
            v_entry := c.entries -> m_chain;
            j_chain := array_position(a_id, (v_entry ->> 'account_id')::uuid);
            IF j_chain IS NULL OR NOT (a_id[j_chain] = ANY (c.account_ids)) THEN
              RAISE EXCEPTION 'ledger.execute_confirm_batch: entry % is on account %, which the call does not lock and update', m_chain, v_entry ->> 'account_id';
            END IF;
            a_seq[j_chain] := a_seq[j_chain] + 1;
            a_chained[j_chain] := true;
            e_id := e_id || (v_entry ->> 'id')::uuid;
            e_tx := e_tx || c.transaction_id;
            e_account := e_account || (v_entry ->> 'account_id')::uuid;
            e_kind := e_kind || (v_entry ->> 'kind');
            e_amount := e_amount || (v_entry ->> 'amount')::bigint;
            e_currency := e_currency || c.currency::text;
            e_counterparty := e_counterparty || (v_entry ->> 'counterparty_id')::uuid;
            e_created_by := e_created_by || coalesce(c.created_by, v_i.initiated_by);
            e_created_at := e_created_at || v_completed_at;
            e_seq := e_seq || a_seq[j_chain];
            e_prev := e_prev || a_head[j_chain];
            a_head[j_chain] := ledger.chain_link(a_head[j_chain], a_seq[j_chain], (v_entry ->> 'id')::uuid, c.transaction_id,
              (v_entry ->> 'account_id')::uuid, v_entry ->> 'kind', (v_entry ->> 'amount')::bigint, c.currency::text,
              (v_entry ->> 'counterparty_id')::uuid, v_completed_at, c.reference_id, v_i.type, c.amount, c.fee, c.currency::text,
              v_completed_at, c.intent_id, NULL);
            e_hash := e_hash || a_head[j_chain];
          END LOOP;

          -- The intent as the next calls see it.
          v_i.status := 'SUCCEEDED'; v_i.transaction_id := c.transaction_id; v_i.fee := c.fee; v_i.updated_at := v_completed_at;
          v_intents[k] := v_i;
        END LOOP;

        IF cardinality(w_calls) > 0 THEN
          INSERT INTO ledger.transactions (id, reference_id, type, intent_id, amount, fee, currency, created_by, initiated_at, completed_at, metadata)
          SELECT (w.c).transaction_id, (w.c).reference_id, (w.i).type, (w.c).intent_id, (w.c).amount, (w.c).fee, (w.c).currency,
                 coalesce((w.c).created_by, (w.i).initiated_by), (w.i).created_at, v_completed_at,
                 jsonb_build_object('typeCode', coalesce((w.c).type_code, (w.i).type), 'agentId', coalesce((w.c).agent_id, (w.i).agent_id),
                   'correlationId', (w.c).correlation_id, 'intentId', (w.i).id, 'description', coalesce((w.c).description, (w.i).description))
                 || CASE WHEN (w.c).extra IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('extra', (w.c).extra) END
            FROM (SELECT w_calls[g] AS c, w_intents[g] AS i, g FROM generate_subscripts(w_calls, 1) g) w ORDER BY w.g;

          INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by, created_at,
                                     chain_seq, chain_prev, chain_hash)
          SELECT e.id, e.tx, e.account_id, e.kind, e.amount, e.currency, e.counterparty_id, e.created_by, e.created_at, e.seq, e.prev, e.hash
            FROM unnest(e_id, e_tx, e_account, e_kind, e_amount, e_currency, e_counterparty, e_created_by, e_created_at, e_seq, e_prev, e_hash)
                 AS e (id, tx, account_id, kind, amount, currency, counterparty_id, created_by, created_at, seq, prev, hash);

          -- The rows are locked: their new values are the ones computed above from the locked ones.
          v_want := ARRAY(SELECT a_id[g] FROM generate_subscripts(a_id, 1) g WHERE a_updated[g] IS NOT NULL OR a_chained[g]);
          UPDATE ledger.accounts a
             SET balance = a_balance[array_position(a_id, a.id)], available_balance = a_available[array_position(a_id, a.id)],
                 frozen_balance = a_frozen[array_position(a_id, a.id)], updated_at = coalesce(a_updated[array_position(a_id, a.id)], a.updated_at),
                 chain_seq = a_seq[array_position(a_id, a.id)], chain_head = a_head[array_position(a_id, a.id)]
           WHERE a.id = ANY (v_want);

          v_want := ARRAY(SELECT x.intent_id FROM unnest(w_calls) x);
          UPDATE ledger.transaction_intents i
             SET status = 'SUCCEEDED', transaction_id = (w_calls[array_position(v_want, i.id)]).transaction_id,
                 fee = (w_calls[array_position(v_want, i.id)]).fee, updated_at = v_completed_at
           WHERE i.id = ANY (v_want);

          INSERT INTO ledger.intent_events (intent_id, from_status, to_status, event, actor_id, ip_address, user_agent, metadata, created_at)
          SELECT (w.c).intent_id, (w.i).status, 'SUCCEEDED', 'transaction_completed', (w.c).actor_id, (w.c).ip, (w.c).user_agent,
                 (w.c).event_metadata, v_completed_at
            FROM (SELECT w_calls[g] AS c, w_intents[g] AS i, g FROM generate_subscripts(w_calls, 1) g) w ORDER BY w.g;

          DELETE FROM ledger.intent_qr_locks l WHERE l.intent_id = ANY (v_want);

          INSERT INTO ledger.outbox (id, event_type, aggregate_id, payload, created_at)
          SELECT (w.c).outbox_id, (w.c).event_type, (w.c).transaction_id,
                 (w.c).payload || jsonb_build_object('intentType', (w.i).type, 'qrToken', (w.i).qr_token,
                   'createdBy', coalesce((w.c).created_by, (w.i).initiated_by), 'typeCode', coalesce((w.c).type_code, (w.i).type),
                   'agentId', coalesce((w.c).agent_id, (w.i).agent_id), 'occurredAt', v_completed_text),
                 v_completed_at
            FROM (SELECT w_calls[g] AS c, w_intents[g] AS i, g FROM generate_subscripts(w_calls, 1) g) w ORDER BY w.g;

          -- The idempotent responses, call by call as execute_confirm writes them (two calls may share a key).
          FOREACH c IN ARRAY w_calls LOOP
            CONTINUE WHEN c.idem_key IS NULL;
            INSERT INTO ledger.idempotency_keys AS ik (scope, key, request_hash, response_status, response_body, expires_at)
            VALUES (c.idem_scope, c.idem_key, c.idem_hash, c.idem_status, replace(c.idem_body, '"\u0000completedAt"', to_json(v_completed_text)::text)::json, now() + make_interval(hours => c.idem_ttl_hours))
            ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash,
              response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
              created_at = now(), expires_at = EXCLUDED.expires_at
            WHERE ik.expires_at <= now();
          END LOOP;
        END IF;

        RETURN QUERY SELECT r_ok[g], r_refusal[g], r_intent[g], r_available[g], r_accounts[g], v_lock_ms,
            CASE WHEN r_ok[g] THEN v_completed_text END
          FROM generate_subscripts(r_ok, 1) g ORDER BY g;
      END $function$`;

const OLD_CONFIRM_TEXT = String.raw`
CREATE OR REPLACE FUNCTION ledger.execute_confirm(p_intent_id uuid, p_from_statuses text[], p_now timestamp with time zone, p_account_ids uuid[], p_source_id uuid, p_destination_id uuid, p_amount bigint, p_fee bigint, p_commission bigint, p_currency text, p_fee_account_id uuid, p_commission_from_id uuid, p_commission_to_id uuid, p_rules jsonb, p_transaction_id uuid, p_reference_id text, p_completed_at timestamp with time zone, p_created_by text, p_type_code text, p_agent_id text, p_description text, p_extra jsonb, p_correlation_id text, p_entries jsonb, p_deltas jsonb, p_actor_id text, p_ip text, p_user_agent text, p_event_metadata jsonb, p_outbox_id uuid, p_event_type text, p_payload jsonb, p_idem_scope text, p_idem_key text, p_idem_hash text, p_idem_status integer, p_idem_body text, p_idem_ttl_hours integer)
 RETURNS TABLE(ok boolean, refusal text, intent json, available text, accounts json, lock_ms double precision)
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
      DECLARE
        v_i ledger.transaction_intents%ROWTYPE;
        v_found int;
        v_available bigint;
        v_accounts json;
        v_other_currency boolean;
        v_src_type text; v_src_wallet uuid;
        v_dst_type text; v_dst_wallet uuid;
        v_fee_type text;
        v_cfrom_type text;
        v_cto_type text; v_cto_wallet uuid;
        v_rule jsonb;
        v_agent_wallet uuid;
        v_refusal text;
        v_lock_ms double precision;
        v_created_by text;
        v_type_code text;
        v_agent_id text;
        v_a_id uuid[];
        v_a_seq bigint[];
        v_a_head bytea[];
        m_chain int;
        j_chain int;
        v_entry jsonb;
        e_id uuid[] := '{}'; e_tx uuid[] := '{}'; e_account uuid[] := '{}'; e_kind text[] := '{}'; e_amount bigint[] := '{}';
        e_currency text[] := '{}'; e_counterparty uuid[] := '{}'; e_created_by text[] := '{}'; e_created_at timestamptz[] := '{}';
        e_seq bigint[] := '{}'; e_prev bytea[] := '{}'; e_hash bytea[] := '{}';
      BEGIN
        SELECT * INTO v_i FROM ledger.transaction_intents i WHERE i.id = p_intent_id FOR UPDATE;
        IF NOT FOUND THEN v_refusal := 'INTENT_NOT_FOUND';
        ELSIF NOT (v_i.status = ANY (p_from_statuses)) THEN v_refusal := 'INVALID_INTENT_TRANSITION';
        -- In whole milliseconds, as the service's clock and every other expiry check read it.
        ELSIF date_trunc('milliseconds', v_i.expires_at) <= p_now THEN v_refusal := 'INTENT_EXPIRED';
        ELSIF v_i.source_account_id <> p_source_id OR v_i.destination_account_id <> p_destination_id
           OR v_i.amount <> p_amount OR v_i.currency::text <> p_currency THEN v_refusal := 'EXECUTION_CONTEXT_MISMATCH';
        END IF;
        IF v_refusal IS NOT NULL THEN
          v_lock_ms := extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000;
          RETURN QUERY SELECT false, v_refusal, CASE WHEN v_i.id IS NULL THEN NULL ELSE row_to_json(v_i) END, NULL::text, NULL::json, v_lock_ms;
          RETURN;
        END IF;

        SELECT count(*), max(a.available_balance) FILTER (WHERE a.id = p_source_id),
               bool_or(a.currency <> v_i.currency),
               (array_agg(a.account_type) FILTER (WHERE a.id = p_source_id))[1], (array_agg(a.wallet_id) FILTER (WHERE a.id = p_source_id))[1],
               (array_agg(a.account_type) FILTER (WHERE a.id = p_destination_id))[1], (array_agg(a.wallet_id) FILTER (WHERE a.id = p_destination_id))[1],
               (array_agg(a.account_type) FILTER (WHERE a.id = p_fee_account_id))[1],
               (array_agg(a.account_type) FILTER (WHERE a.id = p_commission_from_id))[1],
               (array_agg(a.account_type) FILTER (WHERE a.id = p_commission_to_id))[1], (array_agg(a.wallet_id) FILTER (WHERE a.id = p_commission_to_id))[1],
               array_agg(a.id ORDER BY a.id), array_agg(a.chain_seq ORDER BY a.id), array_agg(a.chain_head ORDER BY a.id)
          INTO v_found, v_available, v_other_currency, v_src_type, v_src_wallet, v_dst_type, v_dst_wallet,
               v_fee_type, v_cfrom_type, v_cto_type, v_cto_wallet, v_a_id, v_a_seq, v_a_head
          FROM (SELECT x.id, x.account_type, x.wallet_id, x.currency, x.available_balance, x.chain_seq, x.chain_head FROM ledger.accounts x
                WHERE x.id = ANY (p_account_ids) ORDER BY x.id FOR UPDATE) a;
        -- From the round trip's arrival to every lock held: the lock wait, reported in Server-Timing.
        v_lock_ms := extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000;

        -- execution-rules.ts, read from p_rules (checkExecutionAccounts, same order).
        v_rule := p_rules -> 'intents' -> v_i.type;
        v_agent_wallet := CASE v_rule ->> 'agent' WHEN 'source' THEN v_src_wallet WHEN 'destination' THEN v_dst_wallet END;
        IF v_found <> cardinality(p_account_ids) THEN v_refusal := 'ACCOUNT_NOT_FOUND';
        ELSIF v_other_currency THEN v_refusal := 'CURRENCY_MISMATCH';
        ELSIF v_rule IS NULL OR NOT ((v_rule -> 'source') ? v_src_type) OR NOT ((v_rule -> 'destination') ? v_dst_type) THEN
          v_refusal := 'ACCOUNT_TYPE_NOT_ALLOWED';
        ELSIF p_fee > 0 AND v_fee_type IS DISTINCT FROM p_rules -> 'slots' ->> 'fee' THEN v_refusal := 'FEE_ACCOUNT_NOT_ALLOWED';
        ELSIF p_commission > 0 AND v_rule ->> 'agent' IS NULL THEN v_refusal := 'COMMISSION_NOT_ALLOWED';
        ELSIF p_commission > 0 AND v_cfrom_type IS DISTINCT FROM p_rules -> 'slots' ->> 'commissionFrom' THEN
          v_refusal := 'COMMISSION_SOURCE_NOT_ALLOWED';
        ELSIF p_commission > 0 AND (v_cto_type IS DISTINCT FROM p_rules -> 'slots' ->> 'commissionTo' OR v_cto_wallet IS DISTINCT FROM v_agent_wallet) THEN
          v_refusal := 'COMMISSION_NOT_ALLOWED';
        -- Step 3: the hold goes back to available, then amount + fee must fit.
        ELSIF v_available + v_i.frozen_amount < p_amount + p_fee THEN v_refusal := 'INSUFFICIENT_BALANCE';
        END IF;
        IF v_refusal IS NOT NULL THEN
          -- The accounts as locked, for the service's message (built only on a refusal).
          SELECT json_agg(json_build_object('id', x.id, 'account_type', x.account_type, 'wallet_id', x.wallet_id, 'currency', x.currency) ORDER BY x.id)
            INTO v_accounts FROM ledger.accounts x WHERE x.id = ANY (p_account_ids);
          RETURN QUERY SELECT false, v_refusal, row_to_json(v_i), v_available::text, v_accounts, v_lock_ms;
          RETURN;
        END IF;

        -- The intent's own values where the context leaves them out.
        v_created_by := coalesce(p_created_by, v_i.initiated_by);
        v_type_code := coalesce(p_type_code, v_i.type);
        v_agent_id := coalesce(p_agent_id, v_i.agent_id);

        INSERT INTO ledger.transactions (id, reference_id, type, intent_id, amount, fee, currency, created_by, initiated_at, completed_at, metadata)
        VALUES (p_transaction_id, p_reference_id, v_i.type, p_intent_id, p_amount, p_fee, p_currency, v_created_by, v_i.created_at,
          p_completed_at,
          jsonb_build_object('typeCode', v_type_code, 'agentId', v_agent_id, 'correlationId', p_correlation_id, 'intentId', v_i.id,
            'description', coalesce(p_description, v_i.description))
          || CASE WHEN p_extra IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('extra', p_extra) END);

        FOR m_chain IN 0 .. coalesce(jsonb_array_length(p_entries), 0) - 1 LOOP
            v_entry := p_entries -> m_chain;
            j_chain := array_position(v_a_id, (v_entry ->> 'account_id')::uuid);
            IF j_chain IS NULL OR NOT (p_deltas @> jsonb_build_array(jsonb_build_object('id', v_entry ->> 'account_id'))) THEN
              RAISE EXCEPTION 'ledger.execute_confirm: entry % is on account %, which the call does not lock and update', m_chain, v_entry ->> 'account_id';
            END IF;
            v_a_seq[j_chain] := v_a_seq[j_chain] + 1;
            e_id := e_id || (v_entry ->> 'id')::uuid;
            e_tx := e_tx || p_transaction_id;
            e_account := e_account || (v_entry ->> 'account_id')::uuid;
            e_kind := e_kind || (v_entry ->> 'kind');
            e_amount := e_amount || (v_entry ->> 'amount')::bigint;
            e_currency := e_currency || p_currency::text;
            e_counterparty := e_counterparty || (v_entry ->> 'counterparty_id')::uuid;
            e_created_by := e_created_by || v_created_by;
            e_created_at := e_created_at || p_completed_at;
            e_seq := e_seq || v_a_seq[j_chain];
            e_prev := e_prev || v_a_head[j_chain];
            v_a_head[j_chain] := ledger.chain_link(v_a_head[j_chain], v_a_seq[j_chain], (v_entry ->> 'id')::uuid, p_transaction_id,
              (v_entry ->> 'account_id')::uuid, v_entry ->> 'kind', (v_entry ->> 'amount')::bigint, p_currency::text,
              (v_entry ->> 'counterparty_id')::uuid, p_completed_at, p_reference_id, v_i.type, p_amount, p_fee, p_currency::text,
              p_completed_at, p_intent_id, NULL);
            e_hash := e_hash || v_a_head[j_chain];
          END LOOP;
        INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by, created_at,
                                     chain_seq, chain_prev, chain_hash)
          SELECT e.id, e.tx, e.account_id, e.kind, e.amount, e.currency, e.counterparty_id, e.created_by, e.created_at, e.seq, e.prev, e.hash
            FROM unnest(e_id, e_tx, e_account, e_kind, e_amount, e_currency, e_counterparty, e_created_by, e_created_at, e_seq, e_prev, e_hash)
                 AS e (id, tx, account_id, kind, amount, currency, counterparty_id, created_by, created_at, seq, prev, hash);

        -- The entries' deltas, and the hold released on the source (p_deltas always has a row for it).
        UPDATE ledger.accounts a
           SET balance = a.balance + d.balance,
               available_balance = a.available_balance + d.available + CASE WHEN a.id = p_source_id THEN v_i.frozen_amount ELSE 0 END,
               frozen_balance = a.frozen_balance + d.frozen - CASE WHEN a.id = p_source_id THEN v_i.frozen_amount ELSE 0 END,
               updated_at = p_completed_at,
               chain_seq = coalesce(v_a_seq[array_position(v_a_id, a.id)], a.chain_seq),
               chain_head = coalesce(v_a_head[array_position(v_a_id, a.id)], a.chain_head)
          FROM jsonb_to_recordset(p_deltas) AS d (id uuid, balance bigint, available bigint, frozen bigint)
         WHERE a.id = d.id;

        UPDATE ledger.transaction_intents i
           SET status = 'SUCCEEDED', transaction_id = p_transaction_id, fee = p_fee, updated_at = p_completed_at
         WHERE i.id = p_intent_id;

        INSERT INTO ledger.intent_events (intent_id, from_status, to_status, event, actor_id, ip_address, user_agent, metadata, created_at)
        VALUES (p_intent_id, v_i.status, 'SUCCEEDED', 'transaction_completed', p_actor_id, p_ip, p_user_agent, p_event_metadata, p_completed_at);

        DELETE FROM ledger.intent_qr_locks l WHERE l.intent_id = p_intent_id;

        INSERT INTO ledger.outbox (id, event_type, aggregate_id, payload, created_at)
        VALUES (p_outbox_id, p_event_type, p_transaction_id,
          p_payload || jsonb_build_object('intentType', v_i.type, 'qrToken', v_i.qr_token, 'createdBy', v_created_by,
            'typeCode', v_type_code, 'agentId', v_agent_id),
          p_completed_at);

        -- The idempotent response, in the same transaction as the effect (json: a replay returns these bytes).
        IF p_idem_key IS NOT NULL THEN
          INSERT INTO ledger.idempotency_keys AS k (scope, key, request_hash, response_status, response_body, expires_at)
          VALUES (p_idem_scope, p_idem_key, p_idem_hash, p_idem_status, p_idem_body::json, now() + make_interval(hours => p_idem_ttl_hours))
          ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash,
            response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
            created_at = now(), expires_at = EXCLUDED.expires_at
          WHERE k.expires_at <= now();
        END IF;

        RETURN QUERY SELECT true, NULL::text, row_to_json(v_i), (v_available + v_i.frozen_amount - p_amount - p_fee)::text, NULL::json, v_lock_ms;
      END $function$`;

const OLD_PROCEDURE_TEXT = String.raw`
CREATE OR REPLACE PROCEDURE ledger.confirm_checked(IN p_lock_keys bigint[], IN p_release_keys bigint[], IN p_lock_timeout_ms integer, IN p_intent_id uuid, IN p_from_statuses text[], IN p_now timestamp with time zone, IN p_account_ids uuid[], IN p_source_id uuid, IN p_destination_id uuid, IN p_amount bigint, IN p_fee bigint, IN p_commission bigint, IN p_currency text, IN p_fee_account_id uuid, IN p_commission_from_id uuid, IN p_commission_to_id uuid, IN p_rules jsonb, IN p_transaction_id uuid, IN p_reference_id text, IN p_completed_at timestamp with time zone, IN p_created_by text, IN p_type_code text, IN p_agent_id text, IN p_description text, IN p_extra jsonb, IN p_correlation_id text, IN p_entries jsonb, IN p_deltas jsonb, IN p_actor_id text, IN p_ip text, IN p_user_agent text, IN p_event_metadata jsonb, IN p_outbox_id uuid, IN p_event_type text, IN p_payload jsonb, IN p_idem_scope text, IN p_idem_key text, IN p_idem_hash text, IN p_idem_status integer, IN p_idem_body text, IN p_idem_ttl_hours integer, OUT ok boolean, OUT refusal text, OUT intent json, OUT available text, OUT accounts json, OUT lock_ms double precision)
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
        SELECT e.ok, e.refusal, e.intent, e.available, e.accounts, e.lock_ms
          INTO ok, refusal, intent, available, accounts, lock_ms
          FROM ledger.execute_confirm(p_intent_id, p_from_statuses, p_now, p_account_ids, p_source_id, p_destination_id, p_amount, p_fee, p_commission, p_currency, p_fee_account_id, p_commission_from_id, p_commission_to_id, p_rules, p_transaction_id, p_reference_id, p_completed_at, p_created_by, p_type_code, p_agent_id, p_description, p_extra, p_correlation_id, p_entries, p_deltas, p_actor_id, p_ip, p_user_agent, p_event_metadata, p_outbox_id, p_event_type, p_payload, p_idem_scope, p_idem_key, p_idem_hash, p_idem_status, p_idem_body, p_idem_ttl_hours) e;
        COMMIT;
        FOREACH k IN ARRAY p_release_keys LOOP
          PERFORM pg_advisory_unlock(k);
        END LOOP;
      END $procedure$`;

const OLD_BATCH_TEXT = String.raw`
CREATE OR REPLACE FUNCTION ledger.execute_confirm_batch(p_rules jsonb, p_calls jsonb)
 RETURNS TABLE(ok boolean, refusal text, intent json, available text, accounts json, lock_ms double precision)
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
 SET enable_bitmapscan TO 'off'
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
      DECLARE
        v_calls ledger.confirm_call[];
        c ledger.confirm_call;
        n int;
        j int;
        k int;
        m int;
        v_id uuid;
        v_seen int[];
        v_want uuid[];
        -- the intents, locked, as the calls judged so far leave them
        v_intent_ids uuid[];
        v_intents ledger.transaction_intents[];
        v_i ledger.transaction_intents;
        -- the accounts, locked, as the calls judged so far leave them
        a_id uuid[]; a_type text[]; a_wallet uuid[]; a_currency bpchar[];
        a_balance bigint[]; a_available bigint[]; a_frozen bigint[];
        -- when the last accepted call touching the account completed (NULL: untouched)
        a_updated timestamptz[];
        a_seq bigint[]; a_head bytea[]; a_chained boolean[];
        m_chain int;
        j_chain int;
        v_entry jsonb;
        e_id uuid[] := '{}'; e_tx uuid[] := '{}'; e_account uuid[] := '{}'; e_kind text[] := '{}'; e_amount bigint[] := '{}';
        e_currency text[] := '{}'; e_counterparty uuid[] := '{}'; e_created_by text[] := '{}'; e_created_at timestamptz[] := '{}';
        e_seq bigint[] := '{}'; e_prev bytea[] := '{}'; e_hash bytea[] := '{}';
        -- one call's checks (execute_confirm's variables)
        v_found int;
        v_available bigint;
        v_other_currency boolean;
        v_src_type text; v_src_wallet uuid;
        v_dst_type text; v_dst_wallet uuid;
        v_fee_type text;
        v_cfrom_type text;
        v_cto_type text; v_cto_wallet uuid;
        v_rule jsonb;
        v_agent_wallet uuid;
        v_refusal text;
        v_delta jsonb;
        v_hold bigint;
        v_lock_ms double precision;
        -- the answers, one per call, and the accepted calls with their intents before the move
        r_ok boolean[] := '{}';
        r_refusal text[] := '{}';
        r_intent json[] := '{}';
        r_available text[] := '{}';
        r_accounts json[] := '{}';
        w_calls ledger.confirm_call[] := '{}';
        w_intents ledger.transaction_intents[] := '{}';
        v_max constant bigint := 9007199254740991;
      BEGIN
        v_calls := ARRAY(SELECT jsonb_populate_record(NULL::ledger.confirm_call, e.value)
                           FROM jsonb_array_elements(p_calls) WITH ORDINALITY AS e ORDER BY e.ordinality);

        -- The intents are locked by an UPDATE that changes nothing, not by SELECT … FOR UPDATE. A
        -- SERIALIZABLE transaction that reads more than two rows of one page before writing them
        -- holds a read lock on the whole page until it ends, and a concurrent write to that page
        -- then fails one of them with 40001; a row it writes right after reading it keeps no read
        -- lock. The UPDATE takes the row lock PostgreSQL gives a write that keeps the key (FOR NO KEY
        -- UPDATE): every other writer of the row waits, as with FOR UPDATE; only a foreign-key check
        -- of a row inserted for this intent elsewhere does not, and those paths hold the intent's
        -- advisory lock. Read first, the intents of groups of random confirms at c = 32 sent 30 % of the
        -- grouped confirms back to run alone, against 7 % this way (as with one call per confirm).
        -- The accounts keep SELECT … FOR UPDATE: written twice, each account's second UPDATE would
        -- check its wallet's foreign key again, and their pages caused few of those failures.
        -- Index scans (no bitmap scan: the function's SET) on "= ANY (array)": ascending ids.
        v_want := ARRAY(SELECT x.intent_id FROM unnest(v_calls) x);
        WITH locked AS (
          UPDATE ledger.transaction_intents t SET updated_at = t.updated_at WHERE t.id = ANY (v_want) RETURNING t)
        SELECT coalesce(array_agg((l.t).id ORDER BY (l.t).id), '{}'), coalesce(array_agg(l.t ORDER BY (l.t).id), '{}')
          INTO v_intent_ids, v_intents
          FROM locked l;
        v_want := ARRAY(SELECT unnest(x.account_ids) FROM unnest(v_calls) x);
        SELECT coalesce(array_agg(a.id ORDER BY a.id), '{}'), coalesce(array_agg(a.account_type ORDER BY a.id), '{}'),
               coalesce(array_agg(a.wallet_id ORDER BY a.id), '{}'), coalesce(array_agg(a.currency ORDER BY a.id), '{}'),
               coalesce(array_agg(a.balance ORDER BY a.id), '{}'), coalesce(array_agg(a.available_balance ORDER BY a.id), '{}'),
               coalesce(array_agg(a.frozen_balance ORDER BY a.id), '{}'),
               coalesce(array_agg(a.chain_seq ORDER BY a.id), '{}'), coalesce(array_agg(a.chain_head ORDER BY a.id), '{}')
          INTO a_id, a_type, a_wallet, a_currency, a_balance, a_available, a_frozen, a_seq, a_head
          FROM (SELECT x.id, x.account_type, x.wallet_id, x.currency, x.balance, x.available_balance, x.frozen_balance, x.chain_seq, x.chain_head
                  FROM ledger.accounts x
                 WHERE x.id = ANY (v_want) ORDER BY x.id FOR UPDATE) a;
        a_updated := array_fill(NULL::timestamptz, ARRAY[cardinality(a_id)]);
        a_chained := array_fill(false, ARRAY[cardinality(a_id)]);
        -- From the statement's arrival to every lock held, reported in Server-Timing.
        v_lock_ms := extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000;

        FOR n IN 1 .. coalesce(cardinality(v_calls), 0) LOOP
          c := v_calls[n];
          v_refusal := NULL;
          k := array_position(v_intent_ids, c.intent_id);
          IF k IS NULL THEN v_i := NULL; v_refusal := 'INTENT_NOT_FOUND';
          ELSE
            v_i := v_intents[k];
            IF NOT (v_i.status = ANY (c.from_statuses)) THEN v_refusal := 'INVALID_INTENT_TRANSITION';
            ELSIF date_trunc('milliseconds', v_i.expires_at) <= c.now THEN v_refusal := 'INTENT_EXPIRED';
            ELSIF v_i.source_account_id <> c.source_id OR v_i.destination_account_id <> c.destination_id
               OR v_i.amount <> c.amount OR v_i.currency::text <> c.currency THEN v_refusal := 'EXECUTION_CONTEXT_MISMATCH';
            END IF;
          END IF;
          IF v_refusal IS NOT NULL THEN
            r_ok := r_ok || false; r_refusal := r_refusal || v_refusal; r_available := r_available || NULL::text;
            r_intent := r_intent || CASE WHEN v_i.id IS NULL THEN NULL ELSE row_to_json(v_i) END; r_accounts := r_accounts || NULL::json;
            CONTINUE;
          END IF;

          -- execute_confirm's aggregate over the call's locked accounts (one row per distinct account).
          v_found := 0; v_seen := '{}'; v_other_currency := NULL; v_available := NULL;
          v_src_type := NULL; v_src_wallet := NULL; v_dst_type := NULL; v_dst_wallet := NULL;
          v_fee_type := NULL; v_cfrom_type := NULL; v_cto_type := NULL; v_cto_wallet := NULL;
          FOREACH v_id IN ARRAY coalesce(c.account_ids, '{}') LOOP
            j := array_position(a_id, v_id);
            CONTINUE WHEN j IS NULL OR j = ANY (v_seen);
            v_seen := v_seen || j;
            v_found := v_found + 1;
            v_other_currency := coalesce(v_other_currency, false) OR a_currency[j] <> v_i.currency;
            IF a_id[j] = c.source_id THEN v_available := a_available[j]; v_src_type := a_type[j]; v_src_wallet := a_wallet[j]; END IF;
            IF a_id[j] = c.destination_id THEN v_dst_type := a_type[j]; v_dst_wallet := a_wallet[j]; END IF;
            IF a_id[j] = c.fee_account_id THEN v_fee_type := a_type[j]; END IF;
            IF a_id[j] = c.commission_from_id THEN v_cfrom_type := a_type[j]; END IF;
            IF a_id[j] = c.commission_to_id THEN v_cto_type := a_type[j]; v_cto_wallet := a_wallet[j]; END IF;
          END LOOP;

          -- execute_confirm's checks, word for word.
          v_rule := p_rules -> 'intents' -> v_i.type;
          v_agent_wallet := CASE v_rule ->> 'agent' WHEN 'source' THEN v_src_wallet WHEN 'destination' THEN v_dst_wallet END;
          IF v_found <> cardinality(c.account_ids) THEN v_refusal := 'ACCOUNT_NOT_FOUND';
          ELSIF v_other_currency THEN v_refusal := 'CURRENCY_MISMATCH';
          ELSIF v_rule IS NULL OR NOT ((v_rule -> 'source') ? v_src_type) OR NOT ((v_rule -> 'destination') ? v_dst_type) THEN
            v_refusal := 'ACCOUNT_TYPE_NOT_ALLOWED';
          ELSIF c.fee > 0 AND v_fee_type IS DISTINCT FROM p_rules -> 'slots' ->> 'fee' THEN v_refusal := 'FEE_ACCOUNT_NOT_ALLOWED';
          ELSIF c.commission > 0 AND v_rule ->> 'agent' IS NULL THEN v_refusal := 'COMMISSION_NOT_ALLOWED';
          ELSIF c.commission > 0 AND v_cfrom_type IS DISTINCT FROM p_rules -> 'slots' ->> 'commissionFrom' THEN
            v_refusal := 'COMMISSION_SOURCE_NOT_ALLOWED';
          ELSIF c.commission > 0 AND (v_cto_type IS DISTINCT FROM p_rules -> 'slots' ->> 'commissionTo' OR v_cto_wallet IS DISTINCT FROM v_agent_wallet) THEN
            v_refusal := 'COMMISSION_NOT_ALLOWED';
          ELSIF v_available + v_i.frozen_amount < c.amount + c.fee THEN v_refusal := 'INSUFFICIENT_BALANCE';
          END IF;
          IF v_refusal IS NOT NULL THEN
            r_ok := r_ok || false; r_refusal := r_refusal || v_refusal; r_available := r_available || v_available::text;
            r_intent := r_intent || row_to_json(v_i);
            -- The same statement as execute_confirm's: these columns are not written by a confirm.
            r_accounts := r_accounts || (SELECT json_agg(json_build_object('id', x.id, 'account_type', x.account_type, 'wallet_id', x.wallet_id, 'currency', x.currency) ORDER BY x.id)
                                           FROM ledger.accounts x WHERE x.id = ANY (c.account_ids));
            CONTINUE;
          END IF;

          r_ok := r_ok || true; r_refusal := r_refusal || NULL::text; r_accounts := r_accounts || NULL::json;
          r_intent := r_intent || row_to_json(v_i);
          r_available := r_available || (v_available + v_i.frozen_amount - c.amount - c.fee)::text;
          w_calls := w_calls || c;
          w_intents := w_intents || v_i;

          -- The call's UPDATE of its accounts (deltas, and the hold back on the source), in memory.
          v_seen := '{}';
          FOR m IN 0 .. coalesce(jsonb_array_length(c.deltas), 0) - 1 LOOP
            v_delta := c.deltas -> m;
            j := array_position(a_id, (v_delta ->> 'id')::uuid);
            IF j IS NULL OR NOT (a_id[j] = ANY (c.account_ids)) OR j = ANY (v_seen) THEN
              RAISE EXCEPTION 'ledger.execute_confirm_batch: call % has a delta it cannot apply as execute_confirm would (account %)', n, v_delta ->> 'id';
            END IF;
            v_seen := v_seen || j;
            v_hold := CASE WHEN a_id[j] = c.source_id THEN v_i.frozen_amount ELSE 0 END;
            a_balance[j] := a_balance[j] + (v_delta ->> 'balance')::bigint;
            a_available[j] := a_available[j] + (v_delta ->> 'available')::bigint + v_hold;
            a_frozen[j] := a_frozen[j] + (v_delta ->> 'frozen')::bigint - v_hold;
            a_updated[j] := c.completed_at;
            -- What the UPDATE's CHECK constraints (CHK_accounts_*) would refuse after this call.
            IF NOT (a_balance[j] = a_available[j] + a_frozen[j] AND a_frozen[j] >= 0 AND a_frozen[j] <= v_max
                    AND a_balance[j] BETWEEN -v_max AND v_max AND a_available[j] BETWEEN -v_max AND v_max
                    AND ((a_available[j] >= 0 AND a_balance[j] >= 0) OR a_type[j] IN ('treasury', 'suspense'))) THEN
              RAISE EXCEPTION 'ledger.execute_confirm_batch: call % would break a constraint of account %', n, a_id[j]
                USING ERRCODE = 'check_violation', SCHEMA = 'ledger', TABLE = 'accounts';
            END IF;
          END LOOP;

          -- The call's entries, each linked to the one before it on its account (the heads as the earlier calls left them).
          FOR m_chain IN 0 .. coalesce(jsonb_array_length(c.entries), 0) - 1 LOOP
            v_entry := c.entries -> m_chain;
            j_chain := array_position(a_id, (v_entry ->> 'account_id')::uuid);
            IF j_chain IS NULL OR NOT (a_id[j_chain] = ANY (c.account_ids)) THEN
              RAISE EXCEPTION 'ledger.execute_confirm_batch: entry % is on account %, which the call does not lock and update', m_chain, v_entry ->> 'account_id';
            END IF;
            a_seq[j_chain] := a_seq[j_chain] + 1;
            a_chained[j_chain] := true;
            e_id := e_id || (v_entry ->> 'id')::uuid;
            e_tx := e_tx || c.transaction_id;
            e_account := e_account || (v_entry ->> 'account_id')::uuid;
            e_kind := e_kind || (v_entry ->> 'kind');
            e_amount := e_amount || (v_entry ->> 'amount')::bigint;
            e_currency := e_currency || c.currency::text;
            e_counterparty := e_counterparty || (v_entry ->> 'counterparty_id')::uuid;
            e_created_by := e_created_by || coalesce(c.created_by, v_i.initiated_by);
            e_created_at := e_created_at || c.completed_at;
            e_seq := e_seq || a_seq[j_chain];
            e_prev := e_prev || a_head[j_chain];
            a_head[j_chain] := ledger.chain_link(a_head[j_chain], a_seq[j_chain], (v_entry ->> 'id')::uuid, c.transaction_id,
              (v_entry ->> 'account_id')::uuid, v_entry ->> 'kind', (v_entry ->> 'amount')::bigint, c.currency::text,
              (v_entry ->> 'counterparty_id')::uuid, c.completed_at, c.reference_id, v_i.type, c.amount, c.fee, c.currency::text,
              c.completed_at, c.intent_id, NULL);
            e_hash := e_hash || a_head[j_chain];
          END LOOP;

          -- The intent as the next calls see it.
          v_i.status := 'SUCCEEDED'; v_i.transaction_id := c.transaction_id; v_i.fee := c.fee; v_i.updated_at := c.completed_at;
          v_intents[k] := v_i;
        END LOOP;

        IF cardinality(w_calls) > 0 THEN
          INSERT INTO ledger.transactions (id, reference_id, type, intent_id, amount, fee, currency, created_by, initiated_at, completed_at, metadata)
          SELECT (w.c).transaction_id, (w.c).reference_id, (w.i).type, (w.c).intent_id, (w.c).amount, (w.c).fee, (w.c).currency,
                 coalesce((w.c).created_by, (w.i).initiated_by), (w.i).created_at, (w.c).completed_at,
                 jsonb_build_object('typeCode', coalesce((w.c).type_code, (w.i).type), 'agentId', coalesce((w.c).agent_id, (w.i).agent_id),
                   'correlationId', (w.c).correlation_id, 'intentId', (w.i).id, 'description', coalesce((w.c).description, (w.i).description))
                 || CASE WHEN (w.c).extra IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('extra', (w.c).extra) END
            FROM (SELECT w_calls[g] AS c, w_intents[g] AS i, g FROM generate_subscripts(w_calls, 1) g) w ORDER BY w.g;

          INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by, created_at,
                                     chain_seq, chain_prev, chain_hash)
          SELECT e.id, e.tx, e.account_id, e.kind, e.amount, e.currency, e.counterparty_id, e.created_by, e.created_at, e.seq, e.prev, e.hash
            FROM unnest(e_id, e_tx, e_account, e_kind, e_amount, e_currency, e_counterparty, e_created_by, e_created_at, e_seq, e_prev, e_hash)
                 AS e (id, tx, account_id, kind, amount, currency, counterparty_id, created_by, created_at, seq, prev, hash);

          -- The rows are locked: their new values are the ones computed above from the locked ones.
          v_want := ARRAY(SELECT a_id[g] FROM generate_subscripts(a_id, 1) g WHERE a_updated[g] IS NOT NULL OR a_chained[g]);
          UPDATE ledger.accounts a
             SET balance = a_balance[array_position(a_id, a.id)], available_balance = a_available[array_position(a_id, a.id)],
                 frozen_balance = a_frozen[array_position(a_id, a.id)], updated_at = coalesce(a_updated[array_position(a_id, a.id)], a.updated_at),
                 chain_seq = a_seq[array_position(a_id, a.id)], chain_head = a_head[array_position(a_id, a.id)]
           WHERE a.id = ANY (v_want);

          v_want := ARRAY(SELECT x.intent_id FROM unnest(w_calls) x);
          UPDATE ledger.transaction_intents i
             SET status = 'SUCCEEDED', transaction_id = (w_calls[array_position(v_want, i.id)]).transaction_id,
                 fee = (w_calls[array_position(v_want, i.id)]).fee, updated_at = (w_calls[array_position(v_want, i.id)]).completed_at
           WHERE i.id = ANY (v_want);

          INSERT INTO ledger.intent_events (intent_id, from_status, to_status, event, actor_id, ip_address, user_agent, metadata, created_at)
          SELECT (w.c).intent_id, (w.i).status, 'SUCCEEDED', 'transaction_completed', (w.c).actor_id, (w.c).ip, (w.c).user_agent,
                 (w.c).event_metadata, (w.c).completed_at
            FROM (SELECT w_calls[g] AS c, w_intents[g] AS i, g FROM generate_subscripts(w_calls, 1) g) w ORDER BY w.g;

          DELETE FROM ledger.intent_qr_locks l WHERE l.intent_id = ANY (v_want);

          INSERT INTO ledger.outbox (id, event_type, aggregate_id, payload, created_at)
          SELECT (w.c).outbox_id, (w.c).event_type, (w.c).transaction_id,
                 (w.c).payload || jsonb_build_object('intentType', (w.i).type, 'qrToken', (w.i).qr_token,
                   'createdBy', coalesce((w.c).created_by, (w.i).initiated_by), 'typeCode', coalesce((w.c).type_code, (w.i).type),
                   'agentId', coalesce((w.c).agent_id, (w.i).agent_id)),
                 (w.c).completed_at
            FROM (SELECT w_calls[g] AS c, w_intents[g] AS i, g FROM generate_subscripts(w_calls, 1) g) w ORDER BY w.g;

          -- The idempotent responses, call by call as execute_confirm writes them (two calls may share a key).
          FOREACH c IN ARRAY w_calls LOOP
            CONTINUE WHEN c.idem_key IS NULL;
            INSERT INTO ledger.idempotency_keys AS ik (scope, key, request_hash, response_status, response_body, expires_at)
            VALUES (c.idem_scope, c.idem_key, c.idem_hash, c.idem_status, c.idem_body::json, now() + make_interval(hours => c.idem_ttl_hours))
            ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash,
              response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
              created_at = now(), expires_at = EXCLUDED.expires_at
            WHERE ik.expires_at <= now();
          END LOOP;
        END IF;

        RETURN QUERY SELECT r_ok[g], r_refusal[g], r_intent[g], r_available[g], r_accounts[g], v_lock_ms
          FROM generate_subscripts(r_ok, 1) g ORDER BY g;
      END $function$`;
