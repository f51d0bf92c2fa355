import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The monitoring feed's own cursor over `ledger.outbox` (docs/monitoring.md, "The feed"):
 * `monitoring_published_at`, set by the relay's monitoring loop once `monitoring-events` took the
 * row, beside `published_at` for `ledger-events`, so that neither queue waits for the other.
 *
 * Existing rows: until now the relay handed each batch to both queues at once and marked
 * `published_at` only when both took it, so a row published already was seen by monitoring, and a
 * row still pending was seen by neither. The column is added with the migration's time as a
 * default (PostgreSQL keeps a non-volatile default in the catalog: no table rewrite), which marks
 * every existing row, history included, as handed over; monitoring starts from here and is never
 * fed the months before it existed. The default is then dropped, so rows written from now on
 * (the confirm functions list their columns and leave this one out) start NULL, and the rows still
 * pending for partners are put back to NULL through their partial index. An older ledger still
 * running during a rolling upgrade keeps publishing to both queues; the new relay then hands those
 * rows to monitoring a second time, which the feed ignores (it stores each event id once).
 *
 * The partial index serves the loop's read (oldest first) and the lag gauge's min(created_at); it
 * stays as small as the backlog. Built CONCURRENTLY, outside a transaction: the outbox holds a row
 * per payment ever made, and a plain build would block every payment's insert while it reads them
 * all. The column's steps run in their own short transaction first, with a lock timeout, so that
 * waiting for the table's lock behind a long reader never queues payments for long.
 */
export class OutboxMonitoringCursor1765600600000 implements MigrationInterface {
  name = 'OutboxMonitoringCursor1765600600000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.startTransaction();
    try {
      await q.query(`SET LOCAL lock_timeout = '10s'`);
      // IF NOT EXISTS: a run that failed at the index step is run again whole.
      await q.query(`ALTER TABLE ledger.outbox ADD COLUMN IF NOT EXISTS monitoring_published_at timestamptz DEFAULT now()`);
      await q.query(`ALTER TABLE ledger.outbox ALTER COLUMN monitoring_published_at DROP DEFAULT`);
      await q.query(`UPDATE ledger.outbox SET monitoring_published_at = NULL WHERE published_at IS NULL`);
      await q.commitTransaction();
    } catch (error) {
      await q.rollbackTransaction();
      throw error;
    }
    // A failed concurrent build leaves an invalid index behind: drop it before building again.
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ledger."IDX_outbox_monitoring_pending"`);
    await q.query(
      `CREATE INDEX CONCURRENTLY "IDX_outbox_monitoring_pending" ON ledger.outbox (created_at, id) WHERE monitoring_published_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ledger."IDX_outbox_monitoring_pending"`);
    await q.query(`ALTER TABLE ledger.outbox DROP COLUMN IF EXISTS monitoring_published_at`);
  }
}
