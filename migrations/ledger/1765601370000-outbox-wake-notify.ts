import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Wakes the outbox relay when rows are committed (docs/architecture.md, "Waking the outbox relays on commit"): a
 * statement-level AFTER INSERT trigger on `ledger.outbox` sends `pg_notify('ledger_outbox', '')`.
 * PostgreSQL delivers it only when the inserting transaction commits, and folds identical
 * notifications of one transaction into one, so a confirm batch that writes many rows wakes the
 * relay once. The relay LISTENs on one connection of its own and keeps its poll for whatever a
 * lost notification leaves behind.
 *
 * Its own function (`ledger.outbox_wake_notify`) and trigger (`trg_outbox_wake`): the functions
 * that write the outbox rows are not touched. The trigger function needs no privilege beyond what
 * any role has (pg_notify is PUBLIC), and it is owned by the migration role like every other one.
 */
export class OutboxWakeNotify1765601370000 implements MigrationInterface {
  name = 'OutboxWakeNotify1765601370000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION ledger.outbox_wake_notify() RETURNS trigger
        LANGUAGE plpgsql SET search_path = pg_catalog AS $$
      BEGIN
        PERFORM pg_notify('ledger_outbox', '');
        RETURN NULL;
      END
      $$`);
    await q.query(`DROP TRIGGER IF EXISTS trg_outbox_wake ON ledger.outbox`);
    await q.query(`
      CREATE TRIGGER trg_outbox_wake AFTER INSERT ON ledger.outbox
        FOR EACH STATEMENT EXECUTE FUNCTION ledger.outbox_wake_notify()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER IF EXISTS trg_outbox_wake ON ledger.outbox`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.outbox_wake_notify()`);
  }
}
