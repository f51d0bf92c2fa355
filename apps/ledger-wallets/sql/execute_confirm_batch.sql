CREATE OR REPLACE FUNCTION ledger.execute_confirm_batch(p_calls ledger.confirm_call[])
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
        -- whether the account's wallet is ACTIVE (read with the locked accounts; a confirm never changes it)
        a_active boolean[];
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
        v_inactive_wallet boolean;
        v_src_type text; v_src_wallet uuid;
        v_dst_type text; v_dst_wallet uuid;
        v_fee_type text;
        v_cfrom_type text;
        v_cto_type text; v_cto_wallet uuid;
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
        v_calls := p_calls;

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
               coalesce(array_agg(a.chain_seq ORDER BY a.id), '{}'), coalesce(array_agg(a.chain_head ORDER BY a.id), '{}'),
               coalesce(array_agg(w.status = 'ACTIVE' ORDER BY a.id), '{}')
          INTO a_id, a_type, a_wallet, a_currency, a_balance, a_available, a_frozen, a_seq, a_head, a_active
          FROM (SELECT x.id, x.account_type, x.wallet_id, x.currency, x.balance, x.available_balance, x.frozen_balance, x.chain_seq, x.chain_head
                  FROM ledger.accounts x
                 WHERE x.id = ANY (v_want) ORDER BY x.id FOR UPDATE) a
          -- Each account's wallet, read (not locked) with the locked accounts, as execute_confirm reads it.
          JOIN ledger.wallets w ON w.id = a.wallet_id;
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
          v_found := 0; v_seen := '{}'; v_other_currency := NULL; v_inactive_wallet := NULL; v_available := NULL; v_dst_balance := NULL;
          v_src_type := NULL; v_src_wallet := NULL; v_dst_type := NULL; v_dst_wallet := NULL;
          v_fee_type := NULL; v_cfrom_type := NULL; v_cto_type := NULL; v_cto_wallet := NULL;
          FOREACH v_id IN ARRAY coalesce(c.account_ids, '{}') LOOP
            j := array_position(a_id, v_id);
            CONTINUE WHEN j IS NULL OR j = ANY (v_seen);
            v_seen := v_seen || j;
            v_found := v_found + 1;
            v_other_currency := coalesce(v_other_currency, false) OR a_currency[j] <> v_i.currency;
            v_inactive_wallet := coalesce(v_inactive_wallet, false) OR NOT a_active[j];
            IF a_id[j] = c.source_id THEN v_available := a_available[j]; v_src_type := a_type[j]; v_src_wallet := a_wallet[j]; END IF;
            IF a_id[j] = c.destination_id THEN v_dst_type := a_type[j]; v_dst_wallet := a_wallet[j]; v_dst_balance := a_balance[j]; END IF;
            IF a_id[j] = c.fee_account_id THEN v_fee_type := a_type[j]; END IF;
            IF a_id[j] = c.commission_from_id THEN v_cfrom_type := a_type[j]; END IF;
            IF a_id[j] = c.commission_to_id THEN v_cto_type := a_type[j]; v_cto_wallet := a_wallet[j]; END IF;
          END LOOP;

          -- execute_confirm's checks, word for word: expiry again at the batch's time, read once every
          -- lock is held (the call's `now` was read before it waited), then the accounts.
          IF date_trunc('milliseconds', v_i.expires_at) <= GREATEST(c.now, v_completed_at) THEN v_refusal := 'INTENT_EXPIRED';
          ELSIF v_found <> cardinality(c.account_ids) THEN v_refusal := 'ACCOUNT_NOT_FOUND';
          -- A wallet that is not ACTIVE (CLOSED, SUSPENDED) neither sends nor receives money.
          ELSIF v_inactive_wallet THEN v_refusal := 'ACCOUNT_NOT_ALLOWED';
          ELSIF v_other_currency THEN v_refusal := 'CURRENCY_MISMATCH';
          ELSE v_refusal := ledger.account_rules_refusal(v_i.type, v_src_type, v_dst_type, v_src_wallet, v_dst_wallet, c.fee, v_fee_type,
                              c.commission, v_cfrom_type, v_cto_type, v_cto_wallet);
          END IF;
          IF v_refusal IS NOT NULL THEN NULL;
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
      END $function$;
