import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Wakes the event relay of every partners replica when events are committed (docs/architecture.md,
 * "Waking the outbox relays on commit"): a statement-level AFTER INSERT trigger on `partners.events` sends
 * `pg_notify('partners_events', '')`, delivered only when the inserting transaction commits (one
 * per transaction however many rows). The replica that committed also starts a pass in-process;
 * the notification reaches the others and covers any insert path that does not. The poll stays as
 * the net for a lost notification.
 */
export class EventsWakeNotify1765601380000 implements MigrationInterface {
  name = 'EventsWakeNotify1765601380000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION partners.events_wake_notify() RETURNS trigger
        LANGUAGE plpgsql SET search_path = pg_catalog AS $$
      BEGIN
        PERFORM pg_notify('partners_events', '');
        RETURN NULL;
      END
      $$`);
    await q.query(`DROP TRIGGER IF EXISTS trg_events_wake ON partners.events`);
    await q.query(`
      CREATE TRIGGER trg_events_wake AFTER INSERT ON partners.events
        FOR EACH STATEMENT EXECUTE FUNCTION partners.events_wake_notify()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER IF EXISTS trg_events_wake ON partners.events`);
    await q.query(`DROP FUNCTION IF EXISTS partners.events_wake_notify()`);
  }
}
