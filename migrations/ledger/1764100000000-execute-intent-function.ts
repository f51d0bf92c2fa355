import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The writes of an intent's move to SUCCEEDED as one PL/pgSQL function (one step of the confirm's
 * speed-up, docs/performance.md "Ledger"). The service computes every value (ids, reference,
 * entries, balance deltas, event and outbox payloads, the idempotent response) and calls the
 * function inside its SERIALIZABLE transaction, after the advisory locks, in the same round trip as
 * BEGIN, COMMIT and the release.
 *
 * Why a function rather than the same statements sent as text: PL/pgSQL keeps each statement's plan
 * for the life of the connection, so a transfer no longer parses and plans a ten-part statement
 * while it holds its locks (that planning was a third of the statement's time, and the locks of a
 * hot account are held for exactly that long).
 *
 * The function locks the intent row, then the accounts in ascending id order (FOR UPDATE: the guard
 * against a writer that skipped the advisory locks), and writes only if, on those locked rows, the
 * intent is still in the status the service checked, every account exists, and the source's
 * available balance plus the intent's hold covers amount + fee. Otherwise it writes nothing and
 * says why (`ok` false, with the status, the available balance and the number of accounts it found).
 */
export class ExecuteIntentFunction1764100000000 implements MigrationInterface {
  name = 'ExecuteIntentFunction1764100000000';

  async up(q: QueryRunner): Promise<void> {
    // enable_seqscan off for the function's own statements (planned once per connection): a
    // sequential scan under SERIALIZABLE would predicate-lock a whole table (see ledger-db.service.ts).
    await q.query(`
      CREATE FUNCTION ledger.execute_intent(
        p_intent_id uuid,
        p_from_status text,
        p_account_ids uuid[],
        p_source_id uuid,
        p_release bigint,
        p_required bigint,
        p_transaction_id uuid,
        p_reference_id text,
        p_type text,
        p_amount bigint,
        p_fee bigint,
        p_currency text,
        p_created_by text,
        p_initiated_at timestamptz,
        p_completed_at timestamptz,
        p_metadata jsonb,
        p_entries jsonb,
        p_deltas jsonb,
        p_actor_id text,
        p_ip text,
        p_user_agent text,
        p_event_metadata jsonb,
        p_outbox_id uuid,
        p_event_type text,
        p_payload jsonb,
        p_idem_scope text DEFAULT NULL,
        p_idem_key text DEFAULT NULL,
        p_idem_hash text DEFAULT NULL,
        p_idem_status int DEFAULT NULL,
        p_idem_body text DEFAULT NULL,
        p_idem_ttl_hours int DEFAULT NULL
      ) RETURNS TABLE (ok boolean, intent_status text, available text, accounts_found int, lock_ms double precision)
      LANGUAGE plpgsql SET enable_seqscan = off AS $$
      DECLARE
        v_status text;
        v_found int;
        v_available bigint;
        v_lock_ms double precision;
      BEGIN
        SELECT i.status INTO v_status FROM ledger.transaction_intents i WHERE i.id = p_intent_id FOR UPDATE;
        SELECT count(*), max(a.available_balance) FILTER (WHERE a.id = p_source_id) INTO v_found, v_available
          FROM (SELECT x.id, x.available_balance FROM ledger.accounts x WHERE x.id = ANY (p_account_ids) ORDER BY x.id FOR UPDATE) a;
        -- From the round trip's arrival to every lock held: the lock wait, reported in Server-Timing.
        v_lock_ms := extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000;

        IF v_status IS DISTINCT FROM p_from_status OR v_found <> cardinality(p_account_ids) OR v_available IS NULL
           OR v_available + p_release < p_required THEN
          RETURN QUERY SELECT false, v_status, v_available::text, v_found, v_lock_ms;
          RETURN;
        END IF;

        INSERT INTO ledger.transactions (id, reference_id, type, intent_id, amount, fee, currency, created_by, initiated_at, completed_at, metadata)
        VALUES (p_transaction_id, p_reference_id, p_type, p_intent_id, p_amount, p_fee, p_currency, p_created_by, p_initiated_at, p_completed_at, p_metadata);

        INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by, created_at)
        SELECT e.id, p_transaction_id, e.account_id, e.kind, e.amount, p_currency, e.counterparty_id, p_created_by, p_completed_at
        FROM jsonb_to_recordset(p_entries) AS e (id uuid, account_id uuid, kind text, amount bigint, counterparty_id uuid);

        UPDATE ledger.accounts a
           SET balance = a.balance + d.balance, available_balance = a.available_balance + d.available,
               frozen_balance = a.frozen_balance + d.frozen, updated_at = p_completed_at
          FROM jsonb_to_recordset(p_deltas) AS d (id uuid, balance bigint, available bigint, frozen bigint)
         WHERE a.id = d.id;

        UPDATE ledger.transaction_intents i
           SET status = 'SUCCEEDED', transaction_id = p_transaction_id, fee = p_fee, updated_at = p_completed_at
         WHERE i.id = p_intent_id;

        INSERT INTO ledger.intent_events (intent_id, from_status, to_status, event, actor_id, ip_address, user_agent, metadata, created_at)
        VALUES (p_intent_id, p_from_status, 'SUCCEEDED', 'transaction_completed', p_actor_id, p_ip, p_user_agent, p_event_metadata, p_completed_at);

        DELETE FROM ledger.intent_qr_locks l WHERE l.intent_id = p_intent_id;

        INSERT INTO ledger.outbox (id, event_type, aggregate_id, payload, created_at)
        VALUES (p_outbox_id, p_event_type, p_transaction_id, p_payload, p_completed_at);

        -- The idempotent response, in the same transaction as the effect (json: a replay returns these bytes).
        IF p_idem_key IS NOT NULL THEN
          INSERT INTO ledger.idempotency_keys AS k (scope, key, request_hash, response_status, response_body, expires_at)
          VALUES (p_idem_scope, p_idem_key, p_idem_hash, p_idem_status, p_idem_body::json, now() + make_interval(hours => p_idem_ttl_hours))
          ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash,
            response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
            created_at = now(), expires_at = EXCLUDED.expires_at
          WHERE k.expires_at <= now();
        END IF;

        RETURN QUERY SELECT true, 'SUCCEEDED'::text, (v_available + p_release - p_required)::text, v_found, v_lock_ms;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION IF EXISTS ledger.execute_intent(
      uuid, text, uuid[], uuid, bigint, bigint, uuid, text, text, bigint, bigint, text, text, timestamptz, timestamptz, jsonb,
      jsonb, jsonb, text, text, text, jsonb, uuid, text, jsonb, text, text, text, int, text, int)`);
  }
}
