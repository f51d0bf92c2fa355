import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `pending_ref`: the merchantId an integration sees while its request has not been accepted — the
 * phone's keyed pseudonym for this integration and mode, for every request, a merchant's or not.
 * Until now a request to a real merchant showed the merchant's own id from the start, the same id
 * to every integration and in both modes, while an unknown phone showed a pseudonym that differs
 * between them: comparing two answers told who is a merchant. The real id is shown once the
 * merchant accepted (`activated_at` set), which is when an integration needs it for its orders.
 *
 * Rows written before this migration have no pseudonym to compute (the phone is not stored): they
 * keep showing `merchant_ref`, and the pending ones among them expire within the pending period.
 */
export class ConnectionPendingRef1764400000000 implements MigrationInterface {
  name = 'ConnectionPendingRef1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE partners.connections ADD COLUMN pending_ref uuid`);
    await q.query(`UPDATE partners.connections SET pending_ref = merchant_ref`);
    await q.query(`ALTER TABLE partners.connections ALTER COLUMN pending_ref SET NOT NULL`);
    await q.query(`COMMENT ON COLUMN partners.connections.pending_ref IS
      'merchantId shown to the integration until the merchant accepts: a keyed pseudonym of the phone (anti-enumeration)'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE partners.connections DROP COLUMN pending_ref`);
  }
}
