import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The partner API (docs/partners.md "1. The shape of an integration"): integrations and their
 * hashed API keys, connections to merchants, QR-backed orders, the idempotency records of order
 * creation, the events sent to partners (an outbox the relay drains into the dispatcher's queue),
 * the ledger events already consumed, and the payments that could not be matched to a payable order
 * (kept for operations, never dropped).
 */
export class PartnersInit1764000000000 implements MigrationInterface {
  name = 'PartnersInit1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE partners.integrations (
        id uuid PRIMARY KEY,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 120),
        technical_contact_email text NOT NULL CHECK (char_length(technical_contact_email) BETWEEN 3 AND 254),
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
        -- live-mode events go to the dispatcher endpoint keyed by the integration id, test-mode
        -- events to this one: each mode has its own URL and its own signing secret
        test_endpoint_id uuid NOT NULL UNIQUE,
        created_by text NOT NULL,
        revoked_at timestamptz(3),
        revoked_by text,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CHECK ((status = 'revoked') = (revoked_at IS NOT NULL)),
        CHECK (test_endpoint_id <> id)
      )`);
    await q.query(`CREATE INDEX integrations_created_idx ON partners.integrations (created_at DESC, id DESC)`);

    // Only the SHA-256 of a key is kept: the key itself is shown once, at issuance.
    await q.query(`
      CREATE TABLE partners.api_keys (
        id uuid PRIMARY KEY,
        integration_id uuid NOT NULL REFERENCES partners.integrations (id),
        livemode boolean NOT NULL,
        key_hash bytea NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
        last4 text NOT NULL CHECK (char_length(last4) = 4),
        created_by text NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        -- end of the overlap after a rotation (NULL: no end)
        expires_at timestamptz(3),
        rotated_to uuid REFERENCES partners.api_keys (id),
        revoked_at timestamptz(3),
        CHECK (rotated_to IS NULL OR expires_at IS NOT NULL)
      )`);
    await q.query(`CREATE INDEX api_keys_integration_idx ON partners.api_keys (integration_id, created_at)`);

    await q.query(`
      CREATE TABLE partners.connections (
        id uuid PRIMARY KEY,
        integration_id uuid NOT NULL REFERENCES partners.integrations (id),
        livemode boolean NOT NULL,
        -- the merchant the request reached; NULL when the phone matched no merchant (anti-enumeration:
        -- the row exists so that the integration sees exactly what it would see for a real merchant)
        merchant_id uuid,
        -- the merchantId the integration sees: the merchant's id, or a keyed pseudonym of the phone
        merchant_ref uuid NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'active', 'rejected', 'revoked', 'expired')),
        scopes text[] NOT NULL CHECK (cardinality(scopes) BETWEEN 1 AND 2 AND scopes <@ ARRAY['orders.write', 'orders.read']::text[]),
        requested_reason text CHECK (char_length(requested_reason) <= 500),
        pending_expires_at timestamptz(3) NOT NULL,
        activated_at timestamptz(3),
        rejected_at timestamptz(3),
        expired_at timestamptz(3),
        revoked_at timestamptz(3),
        revoked_by text CHECK (revoked_by IN ('merchant', 'integration', 'admin', 'system')),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CHECK (merchant_id IS NULL OR merchant_id = merchant_ref),
        CHECK ((status = 'revoked') = (revoked_at IS NOT NULL)),
        CHECK ((revoked_at IS NULL) = (revoked_by IS NULL)),
        CHECK ((status = 'rejected') = (rejected_at IS NOT NULL)),
        CHECK ((status = 'expired') = (expired_at IS NOT NULL)),
        CHECK (status <> 'active' OR activated_at IS NOT NULL),
        -- a live connection only ever becomes active through its merchant
        CHECK (status <> 'active' OR merchant_id IS NOT NULL OR NOT livemode)
      )`);
    // One open (pending or active) connection per integration, mode and merchant: a repeated
    // request returns it (alreadyExisted), and concurrent requests cannot create two.
    await q.query(`
      CREATE UNIQUE INDEX connections_one_open_idx ON partners.connections (integration_id, livemode, merchant_ref)
        WHERE status IN ('pending', 'active')`);
    await q.query(`CREATE INDEX connections_integration_idx ON partners.connections (integration_id, livemode, created_at DESC, id DESC)`);
    await q.query(`
      CREATE INDEX connections_merchant_idx ON partners.connections (merchant_id, created_at DESC, id DESC)
        WHERE merchant_id IS NOT NULL AND livemode`);
    await q.query(`CREATE INDEX connections_pending_expiry_idx ON partners.connections (pending_expires_at) WHERE status = 'pending'`);

    await q.query(`
      CREATE TABLE partners.orders (
        id uuid PRIMARY KEY,
        integration_id uuid NOT NULL REFERENCES partners.integrations (id),
        connection_id uuid NOT NULL REFERENCES partners.connections (id),
        merchant_id uuid NOT NULL,
        livemode boolean NOT NULL,
        qr_token text NOT NULL UNIQUE CHECK (char_length(qr_token) BETWEEN 32 AND 120),
        amount bigint NOT NULL CHECK (amount > 0 AND amount <= 9007199254740991),
        currency text NOT NULL CHECK (currency IN ('XAF', 'XOF')),
        description text CHECK (char_length(description) <= 280),
        external_reference text CHECK (char_length(external_reference) <= 128),
        -- the merchant's ledger account in this currency when the order was created: the payment
        -- must credit exactly this account (live mode; test orders never reach the ledger)
        destination_account_id uuid,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'paid', 'expired')),
        created_at timestamptz(3) NOT NULL,
        expires_at timestamptz(3) NOT NULL,
        paid_at timestamptz(3),
        expired_at timestamptz(3),
        ledger_transaction_id uuid,
        transaction_reference text,
        ledger_event_id uuid,
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CHECK (expires_at > created_at),
        CHECK ((status = 'paid') = (paid_at IS NOT NULL)),
        CHECK (status <> 'paid' OR transaction_reference IS NOT NULL),
        CHECK ((status = 'expired') = (expired_at IS NOT NULL)),
        CHECK (NOT livemode OR destination_account_id IS NOT NULL)
      )`);
    await q.query(`CREATE INDEX orders_pending_expiry_idx ON partners.orders (expires_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX orders_integration_idx ON partners.orders (integration_id, livemode, created_at DESC)`);

    // Idempotency-Key of order creation: the first answer, byte for byte, for 24 hours.
    await q.query(`
      CREATE TABLE partners.idempotency_keys (
        integration_id uuid NOT NULL REFERENCES partners.integrations (id),
        livemode boolean NOT NULL,
        key text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 255),
        request_hash bytea NOT NULL,
        response_status integer,
        response_body text,
        order_id uuid,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        expires_at timestamptz(3) NOT NULL,
        PRIMARY KEY (integration_id, livemode, key)
      )`);
    await q.query(`CREATE INDEX idempotency_keys_expiry_idx ON partners.idempotency_keys (expires_at)`);

    // Events for partners (the webhook outbox and the source of GET /partners-public/events).
    // `data` is json, not jsonb: its field order is kept exactly as written.
    await q.query(`
      CREATE TABLE partners.events (
        id uuid PRIMARY KEY,
        integration_id uuid NOT NULL REFERENCES partners.integrations (id),
        livemode boolean NOT NULL,
        type text NOT NULL CHECK (type IN ('order.paid', 'order.expired', 'connection.activated', 'connection.revoked_by_merchant')),
        -- the order or connection the event is about: each type happens once per subject
        subject_id uuid NOT NULL,
        data json NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        dispatched_at timestamptz(3),
        dispatch_attempts integer NOT NULL DEFAULT 0,
        last_error text,
        UNIQUE (type, subject_id)
      )`);
    await q.query(`CREATE INDEX events_listing_idx ON partners.events (integration_id, livemode, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX events_undispatched_idx ON partners.events (created_at) WHERE dispatched_at IS NULL`);

    // Ledger events already applied (at-least-once delivery from the ledger's outbox).
    await q.query(`
      CREATE TABLE partners.ledger_events_processed (
        event_id uuid PRIMARY KEY,
        transaction_id uuid,
        outcome text NOT NULL,
        order_id uuid,
        processed_at timestamptz(3) NOT NULL DEFAULT now()
      )`);

    // Money that moved for an order that could not take it: operations reverse it (docs/partners.md).
    await q.query(`
      CREATE TABLE partners.payment_anomalies (
        id uuid PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('order_expired', 'order_already_paid', 'payment_mismatch', 'test_order')),
        order_id uuid NOT NULL REFERENCES partners.orders (id),
        ledger_event_id uuid NOT NULL UNIQUE,
        transaction_id uuid NOT NULL,
        transaction_reference text NOT NULL,
        amount bigint NOT NULL,
        currency text NOT NULL,
        destination_account_id uuid NOT NULL,
        details json NOT NULL,
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        resolved_at timestamptz(3),
        resolved_by text,
        resolution text,
        CHECK ((status = 'resolved') = (resolved_at IS NOT NULL AND resolution IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX payment_anomalies_open_idx ON partners.payment_anomalies (created_at) WHERE status = 'open'`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'payment_anomalies',
      'ledger_events_processed',
      'events',
      'idempotency_keys',
      'orders',
      'connections',
      'api_keys',
      'integrations',
    ]) {
      await q.query(`DROP TABLE partners.${table}`);
    }
  }
}
