import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The pending sweep (PendingSweep) pages through the events still 'pending' in (updated_at, id)
 * order; a partial index on that order, over pending rows only, keeps each page from scanning the
 * whole table (almost every event ends delivered) and stays small.
 */
export class EventsPendingUpdatedIndex1764900000000 implements MigrationInterface {
  name = 'EventsPendingUpdatedIndex1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS events_pending_updated_idx ON webhooks.events (updated_at, id) WHERE status = 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS webhooks.events_pending_updated_idx`);
  }
}
