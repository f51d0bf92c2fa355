import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A case's operations are the transactions its alerts name and those attached as evidence
 * (docs/monitoring.md): the case view's page of operations and its count, and the facts a
 * suspicion report is built from, look monitored operations up by `transaction_id`. Without an
 * index each of those reads scanned the whole table, which gains a row for every successful
 * operation on the platform.
 *
 * Built CONCURRENTLY, outside a transaction (`transaction = false`): the monitoring feed inserts
 * into this table all day, and a plain CREATE INDEX would hold it against writes for the whole
 * build. A build interrupted midway leaves an INVALID index behind; it is dropped first.
 */
export class MonitoredOperationsTransactionIndex1765600500000 implements MigrationInterface {
  name = 'MonitoredOperationsTransactionIndex1765600500000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS orchestrator.monitored_operations_transaction_idx`);
    await q.query(`CREATE INDEX CONCURRENTLY monitored_operations_transaction_idx ON orchestrator.monitored_operations (transaction_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS orchestrator.monitored_operations_transaction_idx`);
  }
}
