import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SERVICES } from '@mm/contracts';

/**
 * Webhook operations for staff through `/api`
 * (docs/partners.md "The back office: integrations, keys on four eyes, webhook deliveries"):
 * - `resend_requests`: the idempotency key of each resend a staff member asked for, with the job it
 *   queued, so that the same request sent twice (a double click, a retry after a lost answer) starts
 *   one delivery run, not two. A key is written once, in the transaction that claims the run and
 *   queues its job (a job Redis refused rolls the key back with the claim), and never changed or
 *   removed: the runtime role may insert and read, not update or delete.
 * - an index for the back office's event list: one integration's events, newest received first.
 */
export class StaffWebhookOperations1765500000000 implements MigrationInterface {
  name = 'StaffWebhookOperations1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks.resend_requests (
        idempotency_key uuid PRIMARY KEY,
        event_id uuid NOT NULL REFERENCES webhooks.events (id),
        job_id text NOT NULL CHECK (job_id ~ '-resend-[1-9][0-9]*$'),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`REVOKE UPDATE, DELETE ON webhooks.resend_requests FROM "${SERVICES['webhook-dispatcher'].role}"`);
    await q.query(`CREATE INDEX events_integration_received_idx ON webhooks.events (integration_id, received_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhooks.events_integration_received_idx`);
    await q.query(`DROP TABLE webhooks.resend_requests`);
  }
}
