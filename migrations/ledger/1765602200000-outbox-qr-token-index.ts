import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ledger's answer to partners' "were these QR tokens paid?" (`POST /v1/internal/qr-payments`)
 * carries the payments' published events, so that partners can apply one whose event reached it late
 * or never. They are found by the token in the event's payload. Partial: only a QR payment's event
 * has a token, so every other payment writes no entry here (`bench:ledger` is unchanged).
 *
 * Built CONCURRENTLY, outside a transaction, as IntentQrTokenIndex is.
 */
export class OutboxQrTokenIndex1765602200000 implements MigrationInterface {
  name = 'OutboxQrTokenIndex1765602200000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ledger."IDX_outbox_qr_token"`);
    await q.query(
      `CREATE INDEX CONCURRENTLY "IDX_outbox_qr_token" ON ledger.outbox ((payload->>'qrToken')) WHERE payload->>'qrToken' IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ledger."IDX_outbox_qr_token"`);
  }
}
