import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A settlement statement (docs/statements.md) reads one account's entries booked since an instant:
 * the period's lines, and the sums that take the stored balance back to the period's start and end.
 * `IDX_ledgers_account` (account_id) found the account's entries but not the instant, so a statement
 * of one day of a busy merchant read its whole history.
 *
 * The index becomes (account_id, created_at): it serves every lookup by account as before, and the
 * statement's range. It replaces the old one rather than joining it, so each payment still writes
 * the same number of index entries (`bench:ledger`); an entry's created_at is never updated.
 *
 * Built CONCURRENTLY, outside a transaction (`transaction = false`): a plain CREATE INDEX holds a
 * SHARE lock on ledger.ledgers for the whole build, and every payment inserts there. The old index is
 * dropped only once the new one is valid, also without blocking writes. A build interrupted midway
 * leaves an INVALID index behind, dropped at the start of the next run.
 */
export class StatementEntryIndex1765600200000 implements MigrationInterface {
  name = 'StatementEntryIndex1765600200000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ledger."IDX_ledgers_account_booked"`);
    await q.query(`CREATE INDEX CONCURRENTLY "IDX_ledgers_account_booked" ON ledger.ledgers (account_id, created_at)`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ledger."IDX_ledgers_account"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS "IDX_ledgers_account" ON ledger.ledgers (account_id)`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ledger."IDX_ledgers_account_booked"`);
  }
}
