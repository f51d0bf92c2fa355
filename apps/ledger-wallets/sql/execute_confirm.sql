CREATE OR REPLACE FUNCTION ledger.execute_confirm(p_call ledger.confirm_call)
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
        v_inactive_wallet boolean;
        v_src_type text; v_src_wallet uuid;
        v_dst_type text; v_dst_wallet uuid;
        v_fee_type text;
        v_cfrom_type text;
        v_cto_type text; v_cto_wallet uuid;
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
        SELECT * INTO v_i FROM ledger.transaction_intents i WHERE i.id = p_call.intent_id FOR UPDATE;
        IF NOT FOUND THEN v_refusal := 'INTENT_NOT_FOUND';
        ELSIF NOT (v_i.status = ANY (p_call.from_statuses)) THEN v_refusal := 'INVALID_INTENT_TRANSITION';
        -- In whole milliseconds, as the service's clock and every other expiry check read it.
        ELSIF date_trunc('milliseconds', v_i.expires_at) <= p_call.now THEN v_refusal := 'INTENT_EXPIRED';
        ELSIF v_i.source_account_id <> p_call.source_id OR v_i.destination_account_id <> p_call.destination_id
           OR v_i.amount <> p_call.amount OR v_i.currency::text <> p_call.currency THEN v_refusal := 'EXECUTION_CONTEXT_MISMATCH';
        END IF;
        IF v_refusal IS NOT NULL THEN
          v_lock_ms := extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000;
          RETURN QUERY SELECT false, v_refusal, CASE WHEN v_i.id IS NULL THEN NULL ELSE row_to_json(v_i) END, NULL::text, NULL::json, v_lock_ms, NULL::text;
          RETURN;
        END IF;

        SELECT count(*), max(a.available_balance) FILTER (WHERE a.id = p_call.source_id), max(a.balance) FILTER (WHERE a.id = p_call.destination_id),
               bool_or(a.currency <> v_i.currency), bool_or(w.status <> 'ACTIVE'),
               (array_agg(a.account_type) FILTER (WHERE a.id = p_call.source_id))[1], (array_agg(a.wallet_id) FILTER (WHERE a.id = p_call.source_id))[1],
               (array_agg(a.account_type) FILTER (WHERE a.id = p_call.destination_id))[1], (array_agg(a.wallet_id) FILTER (WHERE a.id = p_call.destination_id))[1],
               (array_agg(a.account_type) FILTER (WHERE a.id = p_call.fee_account_id))[1],
               (array_agg(a.account_type) FILTER (WHERE a.id = p_call.commission_from_id))[1],
               (array_agg(a.account_type) FILTER (WHERE a.id = p_call.commission_to_id))[1], (array_agg(a.wallet_id) FILTER (WHERE a.id = p_call.commission_to_id))[1],
               array_agg(a.id ORDER BY a.id), array_agg(a.chain_seq ORDER BY a.id), array_agg(a.chain_head ORDER BY a.id)
          INTO v_found, v_available, v_dst_balance, v_other_currency, v_inactive_wallet, v_src_type, v_src_wallet, v_dst_type, v_dst_wallet,
               v_fee_type, v_cfrom_type, v_cto_type, v_cto_wallet, v_a_id, v_a_seq, v_a_head
          FROM (SELECT x.id, x.account_type, x.wallet_id, x.currency, x.balance, x.available_balance, x.chain_seq, x.chain_head FROM ledger.accounts x
                WHERE x.id = ANY (p_call.account_ids) ORDER BY x.id FOR UPDATE) a
          -- Each account's wallet, read (not locked) with the locked accounts: closing a wallet
          -- (WalletsService.closeUnused) takes the advisory locks of all its accounts first, as this
          -- confirm did, so the snapshot, taken after those locks, holds the status as it is now.
          JOIN ledger.wallets w ON w.id = a.wallet_id;
        -- From the round trip's arrival to every lock held: the lock wait, reported in Server-Timing.
        v_lock_ms := extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000;
        -- The time of the transaction, read once every lock is held: the COMMIT follows in the same
        -- round trip, with no application code in between (docs/ledger.md, "completed_at").
        v_completed_at := date_trunc('milliseconds', clock_timestamp());

        -- Expiry judged again at the transaction's own time: `now` was read before the call waited
        -- for the accounts (and before any retry sent this same call again), so an intent that
        -- expired meanwhile would otherwise still commit (docs/ledger.md "Intents").
        IF date_trunc('milliseconds', v_i.expires_at) <= GREATEST(p_call.now, v_completed_at) THEN v_refusal := 'INTENT_EXPIRED';
        ELSIF v_found <> cardinality(p_call.account_ids) THEN v_refusal := 'ACCOUNT_NOT_FOUND';
        -- Only an ACTIVE wallet sends or receives money: a CLOSED one (a registration undone, its
        -- owner gone) must stay empty, and a SUSPENDED one is stopped as a whole (docs/ledger.md
        -- "Wallets and accounts"). Before the currency and the rules: the account is out of use
        -- whatever the operation.
        ELSIF v_inactive_wallet THEN v_refusal := 'ACCOUNT_NOT_ALLOWED';
        ELSIF v_other_currency THEN v_refusal := 'CURRENCY_MISMATCH';
        -- Which accounts the intent type may involve: ledger.account_rules_refusal, the one statement of the rules.
        ELSE v_refusal := ledger.account_rules_refusal(v_i.type, v_src_type, v_dst_type, v_src_wallet, v_dst_wallet, p_call.fee, v_fee_type,
                            p_call.commission, v_cfrom_type, v_cto_type, v_cto_wallet);
        END IF;
        IF v_refusal IS NOT NULL THEN NULL;
        -- Step 3: the hold goes back to available, then amount + fee must fit.
        ELSIF v_available + v_i.frozen_amount < p_call.amount + p_call.fee THEN v_refusal := 'INSUFFICIENT_BALANCE';
        -- The payee's balance cap, on the locked row: two credits to one account cannot both pass it.
        ELSIF p_call.payee_balance_cap IS NOT NULL AND v_dst_balance + p_call.amount > p_call.payee_balance_cap THEN
          v_refusal := 'LIMIT_BALANCE_CAP_EXCEEDED';
        END IF;
        IF v_refusal IS NOT NULL THEN
          -- The accounts as locked, for the service's message (built only on a refusal).
          SELECT json_agg(json_build_object('id', x.id, 'account_type', x.account_type, 'wallet_id', x.wallet_id, 'currency', x.currency) ORDER BY x.id)
            INTO v_accounts FROM ledger.accounts x WHERE x.id = ANY (p_call.account_ids);
          RETURN QUERY SELECT false, v_refusal, row_to_json(v_i), v_available::text, v_accounts, v_lock_ms, NULL::text;
          RETURN;
        END IF;

        v_completed_text := to_char(v_completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');

        -- The intent's own values where the context leaves them out.
        v_created_by := coalesce(p_call.created_by, v_i.initiated_by);
        v_type_code := coalesce(p_call.type_code, v_i.type);
        v_agent_id := coalesce(p_call.agent_id, v_i.agent_id);

        INSERT INTO ledger.transactions (id, reference_id, type, intent_id, amount, fee, currency, created_by, initiated_at, completed_at, metadata)
        VALUES (p_call.transaction_id, p_call.reference_id, v_i.type, p_call.intent_id, p_call.amount, p_call.fee, p_call.currency, v_created_by, v_i.created_at,
          v_completed_at,
          jsonb_build_object('typeCode', v_type_code, 'agentId', v_agent_id, 'correlationId', p_call.correlation_id, 'intentId', v_i.id,
            'description', coalesce(p_call.description, v_i.description))
          || CASE WHEN p_call.extra IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('extra', p_call.extra) END);

        FOR m_chain IN 0 .. coalesce(jsonb_array_length(p_call.entries), 0) - 1 LOOP
            v_entry := p_call.entries -> m_chain;
            j_chain := array_position(v_a_id, (v_entry ->> 'account_id')::uuid);
            IF j_chain IS NULL OR NOT (p_call.deltas @> jsonb_build_array(jsonb_build_object('id', v_entry ->> 'account_id'))) THEN
              RAISE EXCEPTION 'ledger.execute_confirm: entry % is on account %, which the call does not lock and update', m_chain, v_entry ->> 'account_id';
            END IF;
            v_a_seq[j_chain] := v_a_seq[j_chain] + 1;
            e_id := e_id || (v_entry ->> 'id')::uuid;
            e_tx := e_tx || p_call.transaction_id;
            e_account := e_account || (v_entry ->> 'account_id')::uuid;
            e_kind := e_kind || (v_entry ->> 'kind');
            e_amount := e_amount || (v_entry ->> 'amount')::bigint;
            e_currency := e_currency || p_call.currency::text;
            e_counterparty := e_counterparty || (v_entry ->> 'counterparty_id')::uuid;
            e_created_by := e_created_by || v_created_by;
            e_created_at := e_created_at || v_completed_at;
            e_seq := e_seq || v_a_seq[j_chain];
            e_prev := e_prev || v_a_head[j_chain];
            v_a_head[j_chain] := ledger.chain_link(v_a_head[j_chain], v_a_seq[j_chain], (v_entry ->> 'id')::uuid, p_call.transaction_id,
              (v_entry ->> 'account_id')::uuid, v_entry ->> 'kind', (v_entry ->> 'amount')::bigint, p_call.currency::text,
              (v_entry ->> 'counterparty_id')::uuid, v_completed_at, p_call.reference_id, v_i.type, p_call.amount, p_call.fee, p_call.currency::text,
              v_completed_at, p_call.intent_id, NULL);
            e_hash := e_hash || v_a_head[j_chain];
          END LOOP;
        INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by, created_at,
                                     chain_seq, chain_prev, chain_hash)
          SELECT e.id, e.tx, e.account_id, e.kind, e.amount, e.currency, e.counterparty_id, e.created_by, e.created_at, e.seq, e.prev, e.hash
            FROM unnest(e_id, e_tx, e_account, e_kind, e_amount, e_currency, e_counterparty, e_created_by, e_created_at, e_seq, e_prev, e_hash)
                 AS e (id, tx, account_id, kind, amount, currency, counterparty_id, created_by, created_at, seq, prev, hash);

        -- The entries' deltas, and the hold released on the source (p_call.deltas always has a row for it).
        UPDATE ledger.accounts a
           SET balance = a.balance + d.balance,
               available_balance = a.available_balance + d.available + CASE WHEN a.id = p_call.source_id THEN v_i.frozen_amount ELSE 0 END,
               frozen_balance = a.frozen_balance + d.frozen - CASE WHEN a.id = p_call.source_id THEN v_i.frozen_amount ELSE 0 END,
               updated_at = v_completed_at,
               chain_seq = coalesce(v_a_seq[array_position(v_a_id, a.id)], a.chain_seq),
               chain_head = coalesce(v_a_head[array_position(v_a_id, a.id)], a.chain_head)
          FROM jsonb_to_recordset(p_call.deltas) AS d (id uuid, balance bigint, available bigint, frozen bigint)
         WHERE a.id = d.id;

        UPDATE ledger.transaction_intents i
           SET status = 'SUCCEEDED', transaction_id = p_call.transaction_id, fee = p_call.fee, updated_at = v_completed_at
         WHERE i.id = p_call.intent_id;

        INSERT INTO ledger.intent_events (intent_id, from_status, to_status, event, actor_id, ip_address, user_agent, metadata, created_at)
        VALUES (p_call.intent_id, v_i.status, 'SUCCEEDED', 'transaction_completed', p_call.actor_id, p_call.ip, p_call.user_agent, p_call.event_metadata, v_completed_at);

        DELETE FROM ledger.intent_qr_locks l WHERE l.intent_id = p_call.intent_id;

        INSERT INTO ledger.outbox (id, event_type, aggregate_id, payload, created_at)
        VALUES (p_call.outbox_id, p_call.event_type, p_call.transaction_id,
          p_call.payload || jsonb_build_object('intentType', v_i.type, 'qrToken', v_i.qr_token, 'createdBy', v_created_by,
            'typeCode', v_type_code, 'agentId', v_agent_id, 'occurredAt', v_completed_text),
          v_completed_at);

        -- The idempotent response, in the same transaction as the effect (json: a replay returns these bytes).
        IF p_call.idem_key IS NOT NULL THEN
          INSERT INTO ledger.idempotency_keys AS k (scope, key, request_hash, response_status, response_body, expires_at)
          VALUES (p_call.idem_scope, p_call.idem_key, p_call.idem_hash, p_call.idem_status, replace(p_call.idem_body, '"\u0000completedAt"', to_json(v_completed_text)::text)::json, now() + make_interval(hours => p_call.idem_ttl_hours))
          ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash,
            response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
            created_at = now(), expires_at = EXCLUDED.expires_at
          WHERE k.expires_at <= now();
        END IF;

        RETURN QUERY SELECT true, NULL::text, row_to_json(v_i), (v_available + v_i.frozen_amount - p_call.amount - p_call.fee)::text, NULL::json, v_lock_ms, v_completed_text;
      END $function$;
