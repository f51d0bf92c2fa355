import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The daily threshold report reads one day of customer operations from `ledger.transactions` by
 * `completed_at` (`GET /v1/internal/regulatory/operations`, docs/regulatory-reports.md "The ledger
 * read"). No index covered that column for payments (`IDX_transactions_adjustments_completed` holds
 * adjustments only), so every report page read the whole table.
 *
 * A BRIN index rather than a btree: the table is append-only and rows arrive in completion order
 * (`completed_at` is the confirming request's clock), so the minimum and maximum of each run of 32
 * pages bound that run tightly. The index is a few dozen pages per gigabyte of table; a payment's insert
 * touches it only when its page starts a new run, where a btree would take one more index entry,
 * and its page splits, on every payment (`bench:ledger`). A day's read becomes a bitmap scan of the
 * runs that may hold the day, each row rechecked. `autosummarize`: a run is summarised by
 * autovacuum as soon as the next one starts; an unsummarised run (the newest pages, where yesterday
 * is) would otherwise be read whole until the next vacuum of the table, which on an insert-only
 * table comes only after a fifth of it is new.
 *
 * Serializable money transactions never read by `completed_at`; a SERIALIZABLE scan of a BRIN
 * index would take a predicate lock on the whole index (BRIN has no page-level predicate locks),
 * which is why the reports' read runs outside one.
 */
export class TransactionsCompletedBrin1765600300000 implements MigrationInterface {
  name = 'TransactionsCompletedBrin1765600300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX "IDX_transactions_completed_brin" ON ledger.transactions USING brin (completed_at) WITH (pages_per_range = 32, autosummarize = on)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS ledger."IDX_transactions_completed_brin"`);
  }
}
