import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A settlement statement (docs/statements.md) names, for each payment a merchant received, the
 * partner order it paid: partners looks its orders up by the paying ledger transaction, in batches
 * of up to 1000. Only paid orders carry one, hence the partial index.
 */
export class OrderTransactionIndex1765600200000 implements MigrationInterface {
  name = 'OrderTransactionIndex1765600200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX orders_ledger_transaction_idx ON partners.orders (ledger_transaction_id) WHERE ledger_transaction_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS partners.orders_ledger_transaction_idx`);
  }
}
