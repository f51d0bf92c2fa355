import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Endpoints (one per integration, secrets encrypted at rest), events (the body serialised once and
 * sent byte-identical on every attempt, plus the final state), the attempt log, and the
 * operator-visible record of endpoint health changes.
 */
export class WebhooksInit1763900000000 implements MigrationInterface {
  name = 'WebhooksInit1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks.endpoints (
        integration_id uuid PRIMARY KEY,
        url text NOT NULL CHECK (url ~ '^https?://'),
        -- AES-256-GCM: iv (12) | tag (16) | ciphertext, bound to integration_id as AAD
        secret_ciphertext bytea NOT NULL,
        previous_secret_ciphertext bytea,
        previous_secret_expires_at timestamptz,
        status text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
        -- first failed attempt since the last success; NULL while healthy
        failing_since timestamptz,
        disabled_at timestamptz,
        disabled_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((previous_secret_ciphertext IS NULL) = (previous_secret_expires_at IS NULL)),
        CHECK ((status = 'disabled') = (disabled_at IS NOT NULL))
      )`);
    await q.query(`
      CREATE TABLE webhooks.events (
        id uuid PRIMARY KEY,
        integration_id uuid NOT NULL,
        event_type text NOT NULL,
        body text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'held')),
        attempt_count integer NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
        resend_count integer NOT NULL DEFAULT 0 CHECK (resend_count >= 0),
        created_at timestamptz NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        last_attempt_at timestamptz,
        delivered_at timestamptz,
        failed_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX events_status_received_idx ON webhooks.events (status, received_at)`);
    await q.query(`CREATE INDEX events_integration_status_idx ON webhooks.events (integration_id, status)`);
    await q.query(`
      CREATE TABLE webhooks.attempts (
        id bigserial PRIMARY KEY,
        event_id uuid NOT NULL REFERENCES webhooks.events (id),
        attempt_number integer NOT NULL CHECK (attempt_number >= 1),
        job_id text NOT NULL,
        url text NOT NULL,
        attempted_at timestamptz NOT NULL,
        signed_at bigint NOT NULL,
        status_code integer,
        error text,
        latency_ms integer NOT NULL CHECK (latency_ms >= 0),
        response_excerpt text,
        outcome text NOT NULL CHECK (outcome IN ('success', 'failure')),
        UNIQUE (event_id, attempt_number),
        CHECK (status_code IS NOT NULL OR error IS NOT NULL)
      )`);
    await q.query(`
      CREATE TABLE webhooks.endpoint_health_events (
        id bigserial PRIMARY KEY,
        integration_id uuid NOT NULL REFERENCES webhooks.endpoints (integration_id),
        kind text NOT NULL CHECK (kind IN ('disabled', 'enabled')),
        reason text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX endpoint_health_events_integration_idx ON webhooks.endpoint_health_events (integration_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhooks.endpoint_health_events`);
    await q.query(`DROP TABLE webhooks.attempts`);
    await q.query(`DROP TABLE webhooks.events`);
    await q.query(`DROP TABLE webhooks.endpoints`);
  }
}
