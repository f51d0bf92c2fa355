import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reversing a whole ledger transaction under maker-checker (docs/ledger-corrections.md, "Reversing a
 * transaction"). Until now a correction touched one account against suspense, so undoing a payment
 * took several unrelated corrections that could be approved or refused one by one, leaving money
 * half returned. A reversal is one request; its approval writes the inverse of every entry of the
 * original transaction in one database transaction.
 *
 * `corrections` gains a `kind`: ACCOUNT (what existed: one account, a direction, an amount) or
 * REVERSAL (the transaction to reverse, `reversed_transaction_id`; no account and no direction).
 *
 * `transactions.reversal_of` links a reversal to the transaction it undoes. The database keeps:
 * - at most one reversal per transaction, ever (`UQ_transactions_reversal_of`);
 * - at most one live reversal request per transaction (`UQ_corrections_live_reversal`: pending or
 *   executed; a rejected request frees the slot for a new one);
 * - a reversal points at an existing transaction of its currency that is not itself a reversal
 *   (`trg_transactions_reversal_target`, raised as `CHK_transactions_reversal_target`).
 *
 * Hot path: no foreign key on `transactions.reversal_of` (its check would run for every transfer)
 * and the unique index is partial, so a transfer (reversal_of NULL) neither fires the trigger (its
 * WHEN clause) nor writes to that index. `transactions` is append-only, so a target checked at
 * insert can never disappear afterwards.
 */
export class CorrectionReversals1764700000000 implements MigrationInterface {
  name = 'CorrectionReversals1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE ledger.transactions ADD COLUMN reversal_of uuid`);
    await q.query(`COMMENT ON COLUMN ledger.transactions.reversal_of IS
      'for a reversal: the transaction whose every entry it inverts (at most one reversal per transaction)'`);
    await q.query(`CREATE UNIQUE INDEX "UQ_transactions_reversal_of" ON ledger.transactions (reversal_of) WHERE reversal_of IS NOT NULL`);
    await q.query(`
      CREATE FUNCTION ledger.check_reversal_target() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE target ledger.transactions%ROWTYPE;
      BEGIN
        SELECT * INTO target FROM ledger.transactions t WHERE t.id = NEW.reversal_of;
        IF NOT FOUND OR target.reversal_of IS NOT NULL OR target.currency <> NEW.currency OR target.id = NEW.id THEN
          RAISE EXCEPTION 'ledger.transactions %: a reversal must point at an existing transaction of its currency that is not itself a reversal (reversal_of %)',
            NEW.id, NEW.reversal_of
            USING ERRCODE = 'check_violation', SCHEMA = 'ledger', TABLE = 'transactions', CONSTRAINT = 'CHK_transactions_reversal_target';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER trg_transactions_reversal_target BEFORE INSERT ON ledger.transactions
      FOR EACH ROW WHEN (NEW.reversal_of IS NOT NULL) EXECUTE FUNCTION ledger.check_reversal_target()`);

    await q.query(`ALTER TABLE ledger.corrections ADD COLUMN kind text NOT NULL DEFAULT 'ACCOUNT'`);
    await q.query(`ALTER TABLE ledger.corrections ADD COLUMN reversed_transaction_id uuid REFERENCES ledger.transactions (id)`);
    await q.query(`ALTER TABLE ledger.corrections ALTER COLUMN account_id DROP NOT NULL`);
    await q.query(`ALTER TABLE ledger.corrections ALTER COLUMN direction DROP NOT NULL`);
    await q.query(`
      ALTER TABLE ledger.corrections ADD CONSTRAINT "CHK_corrections_kind" CHECK (
        (kind = 'ACCOUNT' AND account_id IS NOT NULL AND direction IS NOT NULL AND reversed_transaction_id IS NULL)
        OR (kind = 'REVERSAL' AND account_id IS NULL AND direction IS NULL AND reversed_transaction_id IS NOT NULL))`);
    await q.query(`
      CREATE UNIQUE INDEX "UQ_corrections_live_reversal" ON ledger.corrections (reversed_transaction_id)
      WHERE reversed_transaction_id IS NOT NULL AND status <> 'REJECTED'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS ledger."UQ_corrections_live_reversal"`);
    await q.query(`ALTER TABLE ledger.corrections DROP CONSTRAINT IF EXISTS "CHK_corrections_kind"`);
    // Reversal requests have no account: they cannot survive the NOT NULL coming back. Rows are never
    // deleted (trg_corrections_no_delete), so a database holding any refuses the downgrade here.
    await q.query(`ALTER TABLE ledger.corrections ALTER COLUMN direction SET NOT NULL`);
    await q.query(`ALTER TABLE ledger.corrections ALTER COLUMN account_id SET NOT NULL`);
    await q.query(`ALTER TABLE ledger.corrections DROP COLUMN IF EXISTS reversed_transaction_id`);
    await q.query(`ALTER TABLE ledger.corrections DROP COLUMN IF EXISTS kind`);
    await q.query(`DROP TRIGGER IF EXISTS trg_transactions_reversal_target ON ledger.transactions`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.check_reversal_target()`);
    await q.query(`DROP INDEX IF EXISTS ledger."UQ_transactions_reversal_of"`);
    await q.query(`ALTER TABLE ledger.transactions DROP COLUMN IF EXISTS reversal_of`);
  }
}
