import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SERVICES } from '@mm/contracts';

/**
 * Which accounts each ADJUSTMENT transaction touched, so that a holder's statement
 * (`GET /v1/internal/adjustments`) reads only its adjustments. An entry does not carry the type of
 * its transaction, so no index on `ledger.ledgers` can hold adjustment entries alone: the statement
 * read every entry of the holder's accounts (a merchant's hundreds of thousands of payments) to find
 * a handful of corrections.
 *
 * `ledger.adjustment_accounts` is that index, kept by the database itself: a constraint trigger on
 * `ledger.transactions`, deferred to COMMIT (when every entry of the transaction is written,
 * whatever statements wrote them), records one row per account the adjustment's entries touch. Its
 * WHEN clause is false for payments, which therefore queue no trigger event at all. Rows are never
 * changed (append-only, like the entries they index); existing adjustments are backfilled.
 *
 * Only that trigger adds rows: its function runs as its owner (SECURITY DEFINER, with a fixed
 * search_path so that the caller's temporary objects are not looked up first), and the runtime role
 * has no INSERT on the table. A row it could add would list a phantom adjustment in a holder's
 * history, pointing at a transaction that never touched the account.
 */
export class AdjustmentAccounts1765400000000 implements MigrationInterface {
  name = 'AdjustmentAccounts1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE ledger.adjustment_accounts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES ledger.accounts (id),
        transaction_id uuid NOT NULL REFERENCES ledger.transactions (id),
        CONSTRAINT "UQ_adjustment_accounts" UNIQUE (account_id, transaction_id)
      )`);
    await q.query(`
      CREATE FUNCTION ledger.record_adjustment_accounts() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path = ledger, pg_temp AS $$
      BEGIN
        INSERT INTO ledger.adjustment_accounts (account_id, transaction_id)
        SELECT DISTINCT account_id, NEW.id FROM ledger.ledgers WHERE transaction_id = NEW.id
        ON CONFLICT DO NOTHING;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER trg_transactions_adjustment_accounts AFTER INSERT ON ledger.transactions
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.type = 'ADJUSTMENT')
      EXECUTE FUNCTION ledger.record_adjustment_accounts()`);
    await q.query(`
      CREATE TRIGGER trg_adjustment_accounts_append_only BEFORE UPDATE OR DELETE ON ledger.adjustment_accounts
      FOR EACH ROW EXECUTE FUNCTION ledger.forbid_row_change()`);
    await q.query(`
      CREATE TRIGGER trg_adjustment_accounts_no_truncate BEFORE TRUNCATE ON ledger.adjustment_accounts
      FOR EACH STATEMENT EXECUTE FUNCTION ledger.forbid_truncate()`);
    await q.query(`
      INSERT INTO ledger.adjustment_accounts (account_id, transaction_id)
      SELECT DISTINCT l.account_id, t.id FROM ledger.transactions t JOIN ledger.ledgers l ON l.transaction_id = t.id
      WHERE t.type = 'ADJUSTMENT'`);
    // The schema's default privileges grant every row privilege to a new table; the runtime role
    // keeps SELECT only: rows are written by the trigger (as the owner) and never changed.
    await q.query(`REVOKE INSERT, UPDATE, DELETE ON ledger.adjustment_accounts FROM ${SERVICES['ledger-wallets'].role}`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER IF EXISTS trg_transactions_adjustment_accounts ON ledger.transactions`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.record_adjustment_accounts()`);
    await q.query(`DROP TABLE IF EXISTS ledger.adjustment_accounts`);
  }
}
