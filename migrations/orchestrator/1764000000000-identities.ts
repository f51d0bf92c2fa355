import type { MigrationInterface, QueryRunner } from 'typeorm';

const E164 = `'^\\+[1-9][0-9]{7,14}$'`;

/**
 * The orchestrator's identities (its `identities/` module rather than a service of their own,
 * docs/contributing.md "Layout"): customers with their profile, merchants, agents and their
 * organisations, staff users, the ledger accounts each one holds, the registration saga log, and
 * the SMS outbox.
 *
 * Ids of auth users (`user_id`) and ledger wallets/accounts have no foreign key: they live in other
 * services' schemas, which this role cannot read (and may one day be other databases).
 */
export class Identities1764000000000 implements MigrationInterface {
  name = 'Identities1764000000000';

  async up(q: QueryRunner): Promise<void> {
    // Customers: end users, merchants and agents (one row per person who holds a wallet).
    await q.query(`
      CREATE TABLE orchestrator.customers (
        id              uuid PRIMARY KEY,
        user_id         uuid NOT NULL UNIQUE,
        phone           text NOT NULL UNIQUE CHECK (phone ~ ${E164}),
        role            text NOT NULL CHECK (role IN ('CUSTOMER', 'MERCHANT', 'AGENT', 'MASTER_AGENT')),
        status          text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'frozen', 'closed')),
        kyc_tier        text NOT NULL DEFAULT 'TIER_1' CHECK (kyc_tier ~ '^[A-Z][A-Z0-9_]{0,31}$'),
        wallet_id       uuid,
        registration_id uuid NOT NULL,
        -- set by the last step of the registration: until then nobody finds, pays or lists the customer
        registered_at   timestamptz,
        created_at      timestamptz NOT NULL DEFAULT now(),
        updated_at      timestamptz NOT NULL DEFAULT now()
      )`);
    // Keyset pagination of the staff search (newest first).
    await q.query(`CREATE INDEX customers_created_idx ON orchestrator.customers (created_at DESC, id DESC)`);

    await q.query(`
      CREATE TABLE orchestrator.profiles (
        customer_id  uuid PRIMARY KEY REFERENCES orchestrator.customers (id) ON DELETE CASCADE,
        first_name   text NOT NULL CHECK (char_length(first_name) BETWEEN 1 AND 100),
        last_name    text NOT NULL CHECK (char_length(last_name) BETWEEN 1 AND 100),
        country_code text NOT NULL CHECK (country_code ~ '^[A-Z]{2}$'),
        email        text CHECK (email IS NULL OR char_length(email) <= 254),
        updated_at   timestamptz NOT NULL DEFAULT now()
      )`);

    // Every status change of a customer, who made it and why (freeze / unfreeze are staff actions).
    await q.query(`
      CREATE TABLE orchestrator.customer_status_events (
        id          bigserial PRIMARY KEY,
        customer_id uuid NOT NULL REFERENCES orchestrator.customers (id) ON DELETE CASCADE,
        from_status text NOT NULL,
        to_status   text NOT NULL,
        reason      text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 500),
        actor_user_id uuid NOT NULL,
        at          timestamptz NOT NULL DEFAULT now()
      )`);

    // The ledger accounts a customer (or organisation) holds, per currency and purpose, so money
    // flows need no ledger round trip to find them.
    await q.query(`
      CREATE TABLE orchestrator.organisations (
        id         uuid PRIMARY KEY,
        name       text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        wallet_id  uuid,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE orchestrator.ledger_accounts (
        account_id      uuid PRIMARY KEY,
        wallet_id       uuid NOT NULL,
        customer_id     uuid REFERENCES orchestrator.customers (id) ON DELETE CASCADE,
        organisation_id uuid REFERENCES orchestrator.organisations (id) ON DELETE CASCADE,
        currency        text NOT NULL CHECK (currency IN ('XAF', 'XOF')),
        purpose         text NOT NULL CHECK (purpose IN ('main', 'commission')),
        CHECK ((customer_id IS NULL) <> (organisation_id IS NULL))
      )`);
    await q.query(
      `CREATE UNIQUE INDEX ledger_accounts_customer_idx ON orchestrator.ledger_accounts (customer_id, currency, purpose) WHERE customer_id IS NOT NULL`,
    );
    await q.query(
      `CREATE UNIQUE INDEX ledger_accounts_org_idx ON orchestrator.ledger_accounts (organisation_id, currency, purpose) WHERE organisation_id IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE orchestrator.merchants (
        id            uuid PRIMARY KEY,
        customer_id   uuid NOT NULL UNIQUE REFERENCES orchestrator.customers (id) ON DELETE CASCADE,
        business_name text NOT NULL CHECK (char_length(business_name) BETWEEN 1 AND 120),
        category      text NOT NULL,
        created_at    timestamptz NOT NULL DEFAULT now()
      )`);

    await q.query(`
      CREATE TABLE orchestrator.agents (
        id              uuid PRIMARY KEY,
        customer_id     uuid NOT NULL UNIQUE REFERENCES orchestrator.customers (id) ON DELETE CASCADE,
        agent_code      text NOT NULL UNIQUE CHECK (agent_code ~ '^AG[0-9]{8}$'),
        master_agent_id uuid REFERENCES orchestrator.agents (id),
        organisation_id uuid REFERENCES orchestrator.organisations (id),
        created_at      timestamptz NOT NULL DEFAULT now(),
        CHECK (master_agent_id IS NULL OR master_agent_id <> id)
      )`);
    await q.query(
      `CREATE INDEX agents_master_idx ON orchestrator.agents (master_agent_id, created_at, id) WHERE master_agent_id IS NOT NULL`,
    );

    // Staff: support operators, compliance/finance officers, administrators (no wallet).
    await q.query(`
      CREATE TABLE orchestrator.staff (
        id              uuid PRIMARY KEY,
        user_id         uuid NOT NULL UNIQUE,
        phone           text NOT NULL UNIQUE CHECK (phone ~ ${E164}),
        role            text NOT NULL CHECK (role IN ('SUPPORT', 'COMPLIANCE', 'ADMIN')),
        first_name      text NOT NULL CHECK (char_length(first_name) BETWEEN 1 AND 100),
        last_name       text NOT NULL CHECK (char_length(last_name) BETWEEN 1 AND 100),
        country_code    text NOT NULL CHECK (country_code ~ '^[A-Z]{2}$'),
        created_by      uuid,
        registration_id uuid NOT NULL,
        registered_at   timestamptz,
        created_at      timestamptz NOT NULL DEFAULT now(),
        updated_at      timestamptz NOT NULL DEFAULT now()
      )`);

    // Registration saga log: the run, then one append-only event per step transition, each written
    // before and after the call it describes. A run left 'running' or 'compensating' by a dead
    // process is picked up by the recovery job once it has been quiet for a while.
    await q.query(`
      CREATE TABLE orchestrator.sagas (
        id              uuid PRIMARY KEY,
        kind            text NOT NULL CHECK (kind IN ('REGISTER_CUSTOMER', 'REGISTER_MERCHANT', 'REGISTER_AGENT', 'REGISTER_ADMIN', 'REGISTER_STAFF')),
        status          text NOT NULL CHECK (status IN ('running', 'succeeded', 'compensating', 'compensated', 'compensation_failed')),
        idempotency_key text CHECK (idempotency_key IS NULL OR char_length(idempotency_key) BETWEEN 1 AND 200),
        request_hash    text NOT NULL,
        phone           text NOT NULL,
        context         jsonb NOT NULL,
        result          jsonb,
        error           jsonb,
        correlation_id  uuid,
        requested_by    uuid,
        created_at      timestamptz NOT NULL DEFAULT now(),
        updated_at      timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX sagas_idempotency_idx ON orchestrator.sagas (idempotency_key) WHERE idempotency_key IS NOT NULL`);
    await q.query(`CREATE INDEX sagas_unfinished_idx ON orchestrator.sagas (updated_at) WHERE status IN ('running', 'compensating')`);
    await q.query(`
      CREATE TABLE orchestrator.saga_events (
        id      bigserial PRIMARY KEY,
        saga_id uuid NOT NULL REFERENCES orchestrator.sagas (id),
        step    text NOT NULL,
        event   text NOT NULL CHECK (event IN ('started', 'done', 'failed', 'compensating', 'compensated', 'compensation_failed')),
        error   jsonb,
        at      timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX saga_events_saga_idx ON orchestrator.saga_events (saga_id, id)`);
    await q.query(`
      CREATE FUNCTION orchestrator.saga_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'orchestrator.saga_events is append-only' USING ERRCODE = 'restrict_violation';
      END $$`);
    await q.query(`
      CREATE TRIGGER trg_saga_events_append_only BEFORE UPDATE OR DELETE ON orchestrator.saga_events
      FOR EACH ROW EXECUTE FUNCTION orchestrator.saga_events_append_only()`);

    // SMS outbox: rows written in the transaction of what they announce, sent by a relay with
    // retries. dedupe_key makes a repeated enqueue (a retried step) a no-op.
    await q.query(`
      CREATE TABLE orchestrator.sms_outbox (
        id              uuid PRIMARY KEY,
        dedupe_key      text NOT NULL UNIQUE CHECK (char_length(dedupe_key) BETWEEN 1 AND 200),
        to_phone        text NOT NULL CHECK (to_phone ~ ${E164}),
        body            text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 640),
        status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'cancelled')),
        attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        last_error      text,
        correlation_id  uuid,
        created_at      timestamptz NOT NULL DEFAULT now(),
        sent_at         timestamptz
      )`);
    await q.query(`CREATE INDEX sms_outbox_due_idx ON orchestrator.sms_outbox (next_attempt_at) WHERE status = 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS orchestrator.sms_outbox, orchestrator.saga_events, orchestrator.sagas CASCADE`);
    await q.query(`DROP FUNCTION IF EXISTS orchestrator.saga_events_append_only()`);
    await q.query(
      `DROP TABLE IF EXISTS orchestrator.staff, orchestrator.agents, orchestrator.merchants, orchestrator.ledger_accounts,
         orchestrator.organisations, orchestrator.customer_status_events, orchestrator.profiles, orchestrator.customers CASCADE`,
    );
  }
}
