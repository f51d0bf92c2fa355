import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A settlement statement (docs/statements.md) names, for each QR payment a merchant received, the
 * partner order it paid, and is final only once partners has applied every such payment's ledger
 * event. partners looks both up by ledger transaction, in batches of up to 1000:
 * - `orders_ledger_transaction_idx`: the paid orders (only those carry a transaction: partial index);
 * - `ledger_events_processed_transaction_idx`: the events applied, one row per QR payment.
 *
 * Built CONCURRENTLY outside a transaction (`transaction = false`), so that neither table is locked
 * against writes while the index builds; an INVALID index a failed build left is dropped first.
 */
export class OrderTransactionIndex1765600200000 implements MigrationInterface {
  name = 'OrderTransactionIndex1765600200000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS partners.orders_ledger_transaction_idx`);
    await q.query(
      `CREATE INDEX CONCURRENTLY orders_ledger_transaction_idx ON partners.orders (ledger_transaction_id) WHERE ledger_transaction_id IS NOT NULL`,
    );
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS partners.ledger_events_processed_transaction_idx`);
    await q.query(
      `CREATE INDEX CONCURRENTLY ledger_events_processed_transaction_idx ON partners.ledger_events_processed (transaction_id)
        WHERE transaction_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS partners.ledger_events_processed_transaction_idx`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS partners.orders_ledger_transaction_idx`);
  }
}
