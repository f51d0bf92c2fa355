import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Partners asks, before it expires an order, whether the ledger paid the order's QR token
 * (`POST /v1/internal/qr-payments`, through the orchestrator): the intents of a token, found by this
 * index. Partial: only QR payments carry a token, so a transfer or a cash operation writes no entry
 * here (`bench:ledger` is unchanged).
 *
 * Built CONCURRENTLY, outside a transaction, as StatementEntryIndex is: every creation inserts into
 * ledger.transaction_intents. A build interrupted midway leaves an INVALID index, dropped first on
 * the next run.
 */
export class IntentQrTokenIndex1765602000000 implements MigrationInterface {
  name = 'IntentQrTokenIndex1765602000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ledger."IDX_transaction_intents_qr_token"`);
    await q.query(
      `CREATE INDEX CONCURRENTLY "IDX_transaction_intents_qr_token" ON ledger.transaction_intents (qr_token) WHERE qr_token IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ledger."IDX_transaction_intents_qr_token"`);
  }
}
