import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes behind the back office's operation search (`GET /v1/internal/operator-search/operations`,
 * docs/ledger.md "Operator search: operations for the back office"). Without them every page of the
 * list read and sorted the whole of `ledger.transaction_intents` (a parallel sequential scan and a
 * top-N sort), and a search by an account that the payment credited had no index at all
 * (`IDX_transaction_intents_source` covers only the debited side).
 *
 * - `(created_at, id)` of intents: the list's newest-first keyset, read backwards, stopping at a page.
 * - `(destination_account_id, created_at)` of intents: the credited side of an account search, beside
 *   the existing source index (the planner ORs the two bitmaps).
 * - adjustments (transactions without an intent) by `(completed_at, id)`: a partial index, so the
 *   payments' transactions are not in it.
 *
 * None of these columns is ever updated, so an intent's status changes stay HOT updates; each intent
 * creation writes two more index entries.
 */
export class OperatorSearchIndexes1765500100000 implements MigrationInterface {
  name = 'OperatorSearchIndexes1765500100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "IDX_transaction_intents_created" ON ledger.transaction_intents (created_at, id)`);
    await q.query(`CREATE INDEX "IDX_transaction_intents_destination" ON ledger.transaction_intents (destination_account_id, created_at)`);
    await q.query(
      `CREATE INDEX "IDX_transactions_adjustments_completed" ON ledger.transactions (completed_at, id) WHERE intent_id IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS ledger."IDX_transactions_adjustments_completed"`);
    await q.query(`DROP INDEX IF EXISTS ledger."IDX_transaction_intents_destination"`);
    await q.query(`DROP INDEX IF EXISTS ledger."IDX_transaction_intents_created"`);
  }
}
