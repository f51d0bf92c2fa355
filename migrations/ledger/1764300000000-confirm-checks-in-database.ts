import type { MigrationInterface, QueryRunner } from 'typeorm';
import { ConfirmProcedure1764200000000 } from './1764200000000-confirm-procedure';
import { ExecuteIntentFunction1764100000000 } from './1764100000000-execute-intent-function';

/** The parameters of `ledger.execute_confirm`, in order, with their types. */
const CONFIRM_PARAMS = `p_intent_id uuid, p_from_statuses text[], p_now timestamptz, p_account_ids uuid[], p_source_id uuid,
  p_destination_id uuid, p_amount bigint, p_fee bigint, p_commission bigint, p_currency text, p_fee_account_id uuid,
  p_commission_from_id uuid, p_commission_to_id uuid, p_rules jsonb, p_transaction_id uuid, p_reference_id text,
  p_completed_at timestamptz, p_created_by text, p_type_code text, p_agent_id text, p_description text, p_extra jsonb,
  p_correlation_id text, p_entries jsonb, p_deltas jsonb, p_actor_id text, p_ip text, p_user_agent text,
  p_event_metadata jsonb, p_outbox_id uuid, p_event_type text, p_payload jsonb, p_idem_scope text, p_idem_key text,
  p_idem_hash text, p_idem_status int, p_idem_body text, p_idem_ttl_hours int`;

const CONFIRM_ARGS = CONFIRM_PARAMS.split(',')
  .map((p) => p.trim().split(/\s+/)[0])
  .join(', ');

const CONFIRM_SIGNATURE = CONFIRM_PARAMS.split(',')
  .map((p) => p.trim().split(/\s+/).slice(1).join(' '))
  .join(', ');

/**
 * The confirm (move to SUCCEEDED) in ONE round trip (docs/performance.md "Ledger", item 1). Until
 * now the service read the intent and its accounts first (`ledger.execution_read`), checked them,
 * then sent the writes (`CALL ledger.confirm_intent`): two round trips, the first one a third of a
 * confirm's time at c=1. Every check that read made is now made by the database function on the
 * rows it locks:
 *
 * - `ledger.execute_confirm`: locks the intent row, then the accounts in ascending id order (FOR
 *   UPDATE, as before), and refuses, in the order the service always answered, with the error code
 *   of the first check that fails: INTENT_NOT_FOUND, INVALID_INTENT_TRANSITION (status not in
 *   `p_from_statuses`, the state machine's list), INTENT_EXPIRED, EXECUTION_CONTEXT_MISMATCH
 *   (accounts, amount and currency must be the intent's), ACCOUNT_NOT_FOUND, CURRENCY_MISMATCH, the
 *   account-type rules (ACCOUNT_TYPE_NOT_ALLOWED, FEE_ACCOUNT_NOT_ALLOWED, COMMISSION_*), then
 *   INSUFFICIENT_BALANCE. A refusal writes nothing. The account-type rules are not copied here:
 *   they arrive as `p_rules`, the JSON the service builds from `execution-rules.ts`.
 *   What only the intent row knows (its type, hold, creation time, initiator, agent, description,
 *   QR token) is filled in here: into the transaction row, its metadata and the outbox payload, as
 *   the service filled them before (one difference: `initiated_at` is now the intent's
 *   `created_at` to the microsecond; the service's copy had whole milliseconds). It answers the
 *   intent row as it was when locked, from which the service builds its response.
 * - `ledger.confirm_checked`: the procedure around it, as `confirm_intent` was (advisory locks in a
 *   first transaction, then a SERIALIZABLE one whose snapshot follows them, COMMIT, release).
 *
 * `execute_intent`, `confirm_intent` and `execution_read` have no caller left and are dropped: a
 * ledger process of the previous release still running after this migration would answer its
 * confirms 500 (nothing written), so a deploy stops the ledger before migrating (the compose
 * file's one-shot `migrate` runs before the apps start).
 */
export class ConfirmChecksInDatabase1764300000000 implements MigrationInterface {
  name = 'ConfirmChecksInDatabase1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION ledger.execute_confirm(${CONFIRM_PARAMS})
      RETURNS TABLE (ok boolean, refusal text, intent json, available text, accounts json, lock_ms double precision)
      LANGUAGE plpgsql SET enable_seqscan = off SET plan_cache_mode = force_generic_plan AS $$
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
               (array_agg(a.account_type) FILTER (WHERE a.id = p_commission_to_id))[1], (array_agg(a.wallet_id) FILTER (WHERE a.id = p_commission_to_id))[1]
          INTO v_found, v_available, v_other_currency, v_src_type, v_src_wallet, v_dst_type, v_dst_wallet,
               v_fee_type, v_cfrom_type, v_cto_type, v_cto_wallet
          FROM (SELECT x.id, x.account_type, x.wallet_id, x.currency, x.available_balance FROM ledger.accounts x
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

        INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by, created_at)
        SELECT e.id, p_transaction_id, e.account_id, e.kind, e.amount, p_currency, e.counterparty_id, v_created_by, p_completed_at
        FROM jsonb_to_recordset(p_entries) AS e (id uuid, account_id uuid, kind text, amount bigint, counterparty_id uuid);

        -- The entries' deltas, and the hold released on the source (p_deltas always has a row for it).
        UPDATE ledger.accounts a
           SET balance = a.balance + d.balance,
               available_balance = a.available_balance + d.available + CASE WHEN a.id = p_source_id THEN v_i.frozen_amount ELSE 0 END,
               frozen_balance = a.frozen_balance + d.frozen - CASE WHEN a.id = p_source_id THEN v_i.frozen_amount ELSE 0 END,
               updated_at = p_completed_at
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
      END $$`);

    await q.query(`
      CREATE PROCEDURE ledger.confirm_checked(
        p_lock_keys bigint[],
        p_release_keys bigint[],
        p_lock_timeout_ms int,
        ${CONFIRM_PARAMS},
        OUT ok boolean, OUT refusal text, OUT intent json, OUT available text, OUT accounts json, OUT lock_ms double precision)
      LANGUAGE plpgsql AS $$
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
          FROM ledger.execute_confirm(${CONFIRM_ARGS}) e;
        COMMIT;
        FOREACH k IN ARRAY p_release_keys LOOP
          PERFORM pg_advisory_unlock(k);
        END LOOP;
      END $$`);

    await q.query(`DROP PROCEDURE ledger.confirm_intent`);
    await q.query(`DROP FUNCTION ledger.execution_read(uuid, uuid[])`);
    await q.query(`DROP FUNCTION ledger.execute_intent`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP PROCEDURE IF EXISTS ledger.confirm_checked`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.execute_confirm(${CONFIRM_SIGNATURE})`);
    // What this migration dropped, as the two before it created it.
    await new ExecuteIntentFunction1764100000000().up(q);
    await new ConfirmProcedure1764200000000().up(q);
  }
}
