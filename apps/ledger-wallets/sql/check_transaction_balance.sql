CREATE OR REPLACE FUNCTION ledger.check_transaction_balance()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'ledger', 'pg_temp'
AS $function$
      DECLARE
        tx uuid;
        entries bigint;
        net numeric;
        lowest text;
        highest text;
        unbalanced text;
        opened_here boolean;
        memo text;
        mac text;
      BEGIN
        IF TG_TABLE_NAME = 'transactions' THEN tx := NEW.id; ELSE tx := NEW.transaction_id; END IF;
        -- Already found balanced at this COMMIT (see the migration's comment): nothing to redo.
        IF position(' ' || tx::text || ':' IN coalesce(current_setting('ledger.balanced_transaction', true), '')) > 0 THEN
          mac := encode(substr(sha256(int8send(pg_sequence_last_value('ledger.balance_memo_key_a')) || int8send(pg_sequence_last_value('ledger.balance_memo_key_b')) || uuid_send(tx) || int8send(currval('ledger.balance_memo_generation')) || xid8send(pg_current_xact_id())), 1, 16), 'hex');
          IF position(' ' || tx::text || ':' || mac IN current_setting('ledger.balanced_transaction', true)) > 0 THEN RETURN NULL; END IF;
        END IF;

        IF TG_TABLE_NAME = 'ledgers' THEN
          SELECT t.written_in_xact = pg_current_xact_id() INTO opened_here FROM ledger.transactions t WHERE t.id = tx;
          IF NOT COALESCE(opened_here, false) THEN
            RAISE EXCEPTION 'ledger.transactions % is closed: entry % must be written with its transaction', tx, NEW.id
              USING ERRCODE = 'check_violation', SCHEMA = 'ledger', TABLE = 'ledgers', CONSTRAINT = 'CHK_transactions_closed';
          END IF;
        END IF;

        -- One plain aggregate (no grouping) for the usual single-currency transaction; the
        -- per-currency breakdown is computed only to word the refusal of a mixed one.
        SELECT count(*), sum(CASE kind WHEN 'CREDIT' THEN amount ELSE -amount END), min(currency), max(currency)
          INTO entries, net, lowest, highest
        FROM ledger.ledgers WHERE transaction_id = tx;
        IF entries < 2 OR entries > 6 THEN
          RAISE EXCEPTION 'ledger.transactions % has % entries: a transaction has 2 to 6', tx, entries
            USING ERRCODE = 'check_violation', SCHEMA = 'ledger', TABLE = 'transactions', CONSTRAINT = 'CHK_transactions_entry_count';
        END IF;
        IF lowest <> highest THEN
          SELECT string_agg(format('%s %s', per.net, per.currency), ', ' ORDER BY per.currency) FILTER (WHERE per.net <> 0) INTO unbalanced
          FROM (SELECT currency, sum(CASE kind WHEN 'CREDIT' THEN amount ELSE -amount END) AS net
                FROM ledger.ledgers WHERE transaction_id = tx GROUP BY currency) per;
        ELSIF net <> 0 THEN
          unbalanced := format('%s %s', net, lowest);
        END IF;
        IF unbalanced IS NOT NULL THEN
          RAISE EXCEPTION 'ledger.transactions % does not balance: credits minus debits = %', tx, unbalanced
            USING ERRCODE = 'check_violation', SCHEMA = 'ledger', TABLE = 'transactions', CONSTRAINT = 'CHK_transactions_balanced';
        END IF;
        mac := encode(substr(sha256(int8send(pg_sequence_last_value('ledger.balance_memo_key_a')) || int8send(pg_sequence_last_value('ledger.balance_memo_key_b')) || uuid_send(tx) || int8send(currval('ledger.balance_memo_generation')) || xid8send(pg_current_xact_id())), 1, 16), 'hex');
        memo := set_config('ledger.balanced_transaction', right(coalesce(current_setting('ledger.balanced_transaction', true), '') || ' ' || tx::text || ':' || mac, 64 * 70), true);
        RETURN NULL;
      END $function$;
