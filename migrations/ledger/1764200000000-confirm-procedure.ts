import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The parameters of `ledger.execute_intent` (migration 1764100000000), in order, with their types. */
const EXECUTE_PARAMS = `p_intent_id uuid, p_from_status text, p_account_ids uuid[], p_source_id uuid, p_release bigint, p_required bigint,
  p_transaction_id uuid, p_reference_id text, p_type text, p_amount bigint, p_fee bigint, p_currency text, p_created_by text,
  p_initiated_at timestamptz, p_completed_at timestamptz, p_metadata jsonb, p_entries jsonb, p_deltas jsonb, p_actor_id text,
  p_ip text, p_user_agent text, p_event_metadata jsonb, p_outbox_id uuid, p_event_type text, p_payload jsonb, p_idem_scope text,
  p_idem_key text, p_idem_hash text, p_idem_status int, p_idem_body text, p_idem_ttl_hours int`;

const EXECUTE_SIGNATURE = `uuid, text, uuid[], uuid, bigint, bigint, uuid, text, text, bigint, bigint, text, text, timestamptz,
  timestamptz, jsonb, jsonb, jsonb, text, text, text, jsonb, uuid, text, jsonb, text, text, text, int, text, int`;

/**
 * The confirm (move to SUCCEEDED) in ONE statement the service prepares once per connection
 * (docs/performance.md "Ledger"). Measured on the database's side (bench/ledger/sql-floor.ts, perf
 * on the backend): a quarter of a confirm's CPU was parsing, analysing and planning, again at every
 * confirm, what the service sent as text (locks, BEGIN, SET LOCAL, a 31-argument call full of
 * literals, COMMIT, unlock) and re-planning statements whose plan never changes (custom plans of
 * the plan cache).
 *
 * - `ledger.confirm_intent`, a PROCEDURE: its transaction control keeps the order the money path
 *   relies on — the advisory locks (intent, then accounts ascending, then the caller's idempotency
 *   key) in a first transaction, COMMIT, then a SERIALIZABLE transaction whose snapshot is taken
 *   only once they are held (lock_timeout and index-only scans set for it, as the text path did),
 *   the guarded writes of `ledger.execute_intent`, COMMIT, and the release. Called with bound
 *   parameters (no literals to parse) through a named statement. On any error the transaction is
 *   rolled back and the locks stay with the session, which releases them (LedgerDb.recover).
 * - `ledger.execution_read`: the plain read the service checks before the lock, in PL/pgSQL so its
 *   plan is made once (as a prepared statement it was planned at every call: the plan cache keeps
 *   custom plans for `id = ANY($2)`, whose generic estimate looks dearer).
 * - `execute_intent` and `execution_read` use generic plans only: every statement in them reads
 *   by primary key or by a unique index, so a plan made for one set of values fits every other.
 */
export class ConfirmProcedure1764200000000 implements MigrationInterface {
  name = 'ConfirmProcedure1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER FUNCTION ledger.execute_intent(${EXECUTE_SIGNATURE}) SET plan_cache_mode = force_generic_plan`);

    await q.query(`
      CREATE FUNCTION ledger.execution_read(p_intent_id uuid, p_account_ids uuid[])
      RETURNS TABLE (intent json, accounts json)
      LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $$
      BEGIN
        RETURN QUERY SELECT
          (SELECT row_to_json(i) FROM ledger.transaction_intents i WHERE i.id = p_intent_id),
          (SELECT json_agg(a ORDER BY a.id) FROM (
             SELECT x.id, x.account_type, x.wallet_id, x.currency, x.available_balance::text AS available_balance
             FROM ledger.accounts x WHERE x.id = ANY (p_account_ids)) a);
      END $$`);

    await q.query(`
      CREATE PROCEDURE ledger.confirm_intent(
        p_lock_keys bigint[],
        p_release_keys bigint[],
        p_lock_timeout_ms int,
        ${EXECUTE_PARAMS},
        OUT ok boolean, OUT intent_status text, OUT available text, OUT accounts_found int, OUT lock_ms double precision)
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
        SELECT e.ok, e.intent_status, e.available, e.accounts_found, e.lock_ms
          INTO ok, intent_status, available, accounts_found, lock_ms
          FROM ledger.execute_intent(p_intent_id, p_from_status, p_account_ids, p_source_id, p_release, p_required,
            p_transaction_id, p_reference_id, p_type, p_amount, p_fee, p_currency, p_created_by, p_initiated_at,
            p_completed_at, p_metadata, p_entries, p_deltas, p_actor_id, p_ip, p_user_agent, p_event_metadata,
            p_outbox_id, p_event_type, p_payload, p_idem_scope, p_idem_key, p_idem_hash, p_idem_status, p_idem_body,
            p_idem_ttl_hours) e;
        COMMIT;
        FOREACH k IN ARRAY p_release_keys LOOP
          PERFORM pg_advisory_unlock(k);
        END LOOP;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP PROCEDURE IF EXISTS ledger.confirm_intent`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.execution_read(uuid, uuid[])`);
    await q.query(`ALTER FUNCTION ledger.execute_intent(${EXECUTE_SIGNATURE}) RESET plan_cache_mode`);
  }
}
