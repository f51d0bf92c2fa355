import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Partners asks, before it expires orders, whether the ledger paid their QR tokens
 * (`POST /v1/internal/qr-payments`, through the orchestrator). The answer reads the intents of each
 * token, and the published `transaction.completed` events of the paid ones (partners applies an event
 * that reached it late or never). Both indexes are partial: only a QR payment has a token, so a
 * transfer or a cash operation writes no entry in them (`bench:ledger` is unchanged).
 *
 * Built CONCURRENTLY, outside a transaction, as StatementEntryIndex is: every payment inserts into
 * both tables. A build interrupted midway leaves an INVALID index, dropped first on the next run.
 */
export class QrTokenIndexes1765602000000 implements MigrationInterface {
  name = 'QrTokenIndexes1765602000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ledger."IDX_transaction_intents_qr_token"`);
    await q.query(
      `CREATE INDEX CONCURRENTLY "IDX_transaction_intents_qr_token" ON ledger.transaction_intents (qr_token) WHERE qr_token IS NOT NULL`,
    );
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ledger."IDX_outbox_qr_token"`);
    await q.query(
      `CREATE INDEX CONCURRENTLY "IDX_outbox_qr_token" ON ledger.outbox ((payload->>'qrToken')) WHERE payload->>'qrToken' IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ledger."IDX_outbox_qr_token"`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ledger."IDX_transaction_intents_qr_token"`);
  }
}
