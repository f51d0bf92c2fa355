import type { MigrationInterface, QueryRunner } from 'typeorm';

/** 2^53 − 1: the largest integer a JSON client reads exactly; every money value and sum stays within it. */
const MAX = '9007199254740991';

/**
 * Double entry enforced by the database itself (docs/ledger.md "Rules the database enforces"):
 *
 * - At COMMIT, every transaction written in the committing database transaction has 2 to 6 entries
 *   and its entries net to zero per currency; entries can only be added to a transaction in the
 *   database transaction that created it (a committed transaction is closed).
 * - `transactions` is append-only (same trigger and message form as `ledgers` and `intent_events`).
 * - Every money column stays within ±(2^53 − 1), so whatever the service reads back is exact.
 *
 * Cost on the hot path. A transfer inserts one transaction and 2 to 6 entries. A per-entry deferred
 * trigger that re-sums the transaction would run the same aggregate up to 7 times at COMMIT. Here a
 * single function serves both constraint triggers and remembers, in a transaction-local setting, the
 * last transaction it found balanced: the transaction row's event (queued first) does the one real
 * check, and the entries' events that follow only compare that setting with their transaction id
 * (no query). Entries inserted by a later statement reset the memo (statement trigger on `ledgers`),
 * so a check already made under SET CONSTRAINTS … IMMEDIATE is made again once entries change.
 *
 * These triggers stop mistakes, not the schema owner: the service role owns its tables and could
 * drop a trigger or forge the memo; what they guarantee is that no statement the service (or anyone
 * writing through its role by hand) sends can commit unbalanced money.
 */
export class BalanceEnforcement1764000100000 implements MigrationInterface {
  name = 'BalanceEnforcement1764000100000';

  async up(q: QueryRunner): Promise<void> {
    // The database transaction that wrote each transaction row: entries may join it only there.
    // Nullable so existing rows need no rewrite (NULL = written before this migration, closed).
    await q.query(`ALTER TABLE ledger.transactions ADD COLUMN written_in_xact xid8`);
    await q.query(`ALTER TABLE ledger.transactions ALTER COLUMN written_in_xact SET DEFAULT pg_current_xact_id()`);
    await q.query(`COMMENT ON COLUMN ledger.transactions.written_in_xact IS
      'database transaction that inserted the row (set by default); entries may be added to the transaction only inside it'`);

    await q.query(`
      CREATE FUNCTION ledger.check_transaction_balance() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        tx uuid;
        entries bigint;
        net numeric;
        lowest text;
        highest text;
        unbalanced text;
        opened_here boolean;
        memo text;
      BEGIN
        IF TG_TABLE_NAME = 'transactions' THEN tx := NEW.id; ELSE tx := NEW.transaction_id; END IF;
        -- Already found balanced at this COMMIT (see the migration's comment): nothing to redo.
        IF current_setting('ledger.balanced_transaction', true) = tx::text THEN RETURN NULL; END IF;

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
        memo := set_config('ledger.balanced_transaction', tx::text, true);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION ledger.forget_balanced_transaction() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE memo text;
      BEGIN
        memo := set_config('ledger.balanced_transaction', '', true);
        RETURN NULL;
      END $$`);

    await q.query(`
      CREATE CONSTRAINT TRIGGER trg_transactions_balanced AFTER INSERT ON ledger.transactions
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger.check_transaction_balance()`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER trg_ledgers_balanced AFTER INSERT ON ledger.ledgers
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger.check_transaction_balance()`);
    await q.query(`
      CREATE TRIGGER trg_ledgers_forget_balanced BEFORE INSERT ON ledger.ledgers
      FOR EACH STATEMENT EXECUTE FUNCTION ledger.forget_balanced_transaction()`);

    // Append-only, like ledgers and intent_events (the ledgers cascade never gets to run).
    await q.query(`
      CREATE TRIGGER trg_transactions_append_only BEFORE UPDATE OR DELETE ON ledger.transactions
      FOR EACH ROW EXECUTE FUNCTION ledger.forbid_row_change()`);
    await q.query(`
      CREATE TRIGGER trg_transactions_no_truncate BEFORE TRUNCATE ON ledger.transactions
      FOR EACH STATEMENT EXECUTE FUNCTION ledger.forbid_truncate()`);

    // Exact integers only: NOT VALID then VALIDATE, so existing rows are checked without holding
    // an exclusive lock for the scan.
    const ranges: [string, string, string][] = [
      [
        'accounts',
        'CHK_accounts_money_range',
        `balance BETWEEN -${MAX} AND ${MAX} AND available_balance BETWEEN -${MAX} AND ${MAX} AND frozen_balance <= ${MAX}`,
      ],
      ['transactions', 'CHK_transactions_money_range', `amount + fee <= ${MAX}`],
      ['ledgers', 'CHK_ledgers_money_range', `amount <= ${MAX}`],
      ['transaction_intents', 'CHK_transaction_intents_money_range', `amount + fee <= ${MAX} AND frozen_amount <= ${MAX}`],
    ];
    for (const [table, name, check] of ranges) {
      await q.query(`ALTER TABLE ledger.${table} ADD CONSTRAINT "${name}" CHECK (${check}) NOT VALID`);
      await q.query(`ALTER TABLE ledger.${table} VALIDATE CONSTRAINT "${name}"`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE ledger.transaction_intents DROP CONSTRAINT IF EXISTS "CHK_transaction_intents_money_range"`);
    await q.query(`ALTER TABLE ledger.ledgers DROP CONSTRAINT IF EXISTS "CHK_ledgers_money_range"`);
    await q.query(`ALTER TABLE ledger.transactions DROP CONSTRAINT IF EXISTS "CHK_transactions_money_range"`);
    await q.query(`ALTER TABLE ledger.accounts DROP CONSTRAINT IF EXISTS "CHK_accounts_money_range"`);
    await q.query(`DROP TRIGGER IF EXISTS trg_transactions_no_truncate ON ledger.transactions`);
    await q.query(`DROP TRIGGER IF EXISTS trg_transactions_append_only ON ledger.transactions`);
    await q.query(`DROP TRIGGER IF EXISTS trg_ledgers_forget_balanced ON ledger.ledgers`);
    await q.query(`DROP TRIGGER IF EXISTS trg_ledgers_balanced ON ledger.ledgers`);
    await q.query(`DROP TRIGGER IF EXISTS trg_transactions_balanced ON ledger.transactions`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.forget_balanced_transaction()`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.check_transaction_balance()`);
    await q.query(`ALTER TABLE ledger.transactions DROP COLUMN IF EXISTS written_in_xact`);
  }
}
