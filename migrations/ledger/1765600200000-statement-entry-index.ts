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
 */
export class StatementEntryIndex1765600200000 implements MigrationInterface {
  name = 'StatementEntryIndex1765600200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "IDX_ledgers_account_booked" ON ledger.ledgers (account_id, created_at)`);
    await q.query(`DROP INDEX ledger."IDX_ledgers_account"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "IDX_ledgers_account" ON ledger.ledgers (account_id)`);
    await q.query(`DROP INDEX ledger."IDX_ledgers_account_booked"`);
  }
}
