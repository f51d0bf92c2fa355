CREATE OR REPLACE FUNCTION ledger.chain_entry()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      DECLARE
        pending jsonb := coalesce(nullif(current_setting('ledger.chain_pending', true), ''), '{}')::jsonb;
        v_seq bigint;
        v_head bytea;
        t ledger.transactions%ROWTYPE;
      BEGIN
        IF pending ? NEW.account_id::text THEN
          v_seq := (pending -> NEW.account_id::text ->> 0)::bigint;
          v_head := decode(pending -> NEW.account_id::text ->> 1, 'hex');
        ELSE
          SELECT a.chain_seq, a.chain_head INTO v_seq, v_head FROM ledger.accounts a WHERE a.id = NEW.account_id FOR UPDATE;
        END IF;
        SELECT * INTO t FROM ledger.transactions x WHERE x.id = NEW.transaction_id;
        IF v_seq IS NULL OR t.id IS NULL THEN
          RAISE EXCEPTION 'ledger.ledgers %: account % or transaction % not found', NEW.id, NEW.account_id, NEW.transaction_id
            USING ERRCODE = 'foreign_key_violation';
        END IF;
        NEW.chain_seq := v_seq + 1;
        NEW.chain_prev := v_head;
        NEW.chain_hash := ledger.chain_link(v_head, NEW.chain_seq, NEW.id, NEW.transaction_id, NEW.account_id, NEW.kind, NEW.amount,
          NEW.currency::text, NEW.counterparty_ledger_id, NEW.created_at, t.reference_id, t.type, t.amount, t.fee, t.currency::text,
          t.completed_at, t.intent_id, t.reversal_of);
        PERFORM set_config('ledger.chain_pending',
          jsonb_set(pending, ARRAY[NEW.account_id::text], jsonb_build_array(NEW.chain_seq, encode(NEW.chain_hash, 'hex')))::text, true);
        RETURN NEW;
      END $function$;
