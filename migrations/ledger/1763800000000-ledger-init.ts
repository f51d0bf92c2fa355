import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ledger schema (docs/ledger.md "Wallets and accounts", "Intents", "Transactions and entries"):
 * wallets, accounts, transactions, double-entry ledgers, intents and their append-only journal,
 * idempotency keys, nightly integrity checks, and the transactional outbox. Constraints and
 * triggers are the last line of defence (docs/ledger.md "Rules the database enforces"): the service
 * never relies on them for the happy path, but a raw write that bypasses it is still rejected.
 */
export class LedgerInit1763800000000 implements MigrationInterface {
  name = 'LedgerInit1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE ledger.wallets (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        owner_type text NOT NULL CHECK (owner_type IN ('USER', 'AGENT', 'MERCHANT', 'ORGANISATION', 'SYSTEM')),
        owner_id text NOT NULL,
        holder_name text,
        status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'SUSPENDED', 'CLOSED')),
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "UQ_wallets_owner" UNIQUE (owner_type, owner_id)
      )`);

    // Money is bigint in the smallest unit (XAF and XOF have no minor unit).
    // Only treasury (and suspense, which holds unreconciled adjustments of the legacy balance
    // endpoints) may go temporarily negative.
    await q.query(`
      CREATE TABLE ledger.accounts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        wallet_id uuid NOT NULL REFERENCES ledger.wallets (id),
        account_type text NOT NULL CHECK (account_type IN
          ('customer', 'agent', 'merchant', 'organisation', 'agent_commission', 'fee_collection', 'treasury', 'suspense', 'black')),
        currency char(3) NOT NULL CHECK (currency IN ('XAF', 'XOF')),
        holder text NOT NULL,
        balance bigint NOT NULL DEFAULT 0,
        available_balance bigint NOT NULL DEFAULT 0,
        frozen_balance bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "UQ_accounts_wallet_currency_type" UNIQUE (wallet_id, currency, account_type),
        CONSTRAINT "CHK_accounts_positive_balance" CHECK (balance >= 0 OR account_type IN ('treasury', 'suspense')),
        CONSTRAINT "CHK_accounts_balance_consistency" CHECK (balance = available_balance + frozen_balance),
        CONSTRAINT "CHK_accounts_positive_available_balance" CHECK (available_balance >= 0 OR account_type IN ('treasury', 'suspense')),
        CONSTRAINT "CHK_accounts_positive_frozen_balance" CHECK (frozen_balance >= 0)
      ) WITH (fillfactor = 50)`); // room for HOT updates: a balance change never touches an index page
    // One platform-wide technical account per kind and currency (agent commission accounts of
    // individual agents live in the agents' own wallets).
    await q.query(`
      CREATE UNIQUE INDEX "UQ_accounts_technical" ON ledger.accounts (account_type, currency)
      WHERE account_type IN ('fee_collection', 'treasury', 'suspense', 'black')`);

    await q.query(`
      CREATE TABLE ledger.transaction_intents (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        type text NOT NULL CHECK (type IN ('TRANSFER', 'CASH_IN', 'CASH_OUT')),
        status text NOT NULL CHECK (status IN
          ('CREATED', 'OTP_SENT', 'OTP_VERIFIED', 'PIN_VERIFIED', 'SUCCEEDED', 'FAILED', 'EXPIRED', 'CANCELED')),
        idempotency_key text NOT NULL,
        -- No foreign keys to accounts here, on purpose: under SERIALIZABLE the FK check locks the
        -- referenced row FOR KEY SHARE, and the destination (a hot merchant) is updated by every
        -- payment, so each intent creation would fail with 40001. Accounts are never deleted
        -- (trigger below) and the service checks both ids exist before inserting.
        source_account_id uuid NOT NULL,
        destination_account_id uuid NOT NULL,
        amount bigint NOT NULL CHECK (amount > 0),
        fee bigint NOT NULL DEFAULT 0 CHECK (fee >= 0),
        frozen_amount bigint NOT NULL CHECK (frozen_amount >= 0),
        currency char(3) NOT NULL CHECK (currency IN ('XAF', 'XOF')),
        requires_otp boolean NOT NULL DEFAULT false,
        qr_token text,
        description text,
        initiated_by text NOT NULL,
        agent_id text,
        transaction_id uuid,
        failure_reason text,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "UQ_transaction_intents_idempotency_key" UNIQUE (idempotency_key),
        CONSTRAINT "CHK_transaction_intents_distinct_accounts" CHECK (source_account_id <> destination_account_id)
      ) WITH (fillfactor = 70)`);
    // One QR can lock only one active intent at a time: the lock is a row of its own, inserted with
    // the intent and deleted when the intent ends. (A partial unique index on status would do the
    // same, but then no status change could be a HOT update: every transition would insert index
    // entries into pages that concurrent SERIALIZABLE transactions have read, a needless source of
    // 40001s.)
    await q.query(`
      CREATE TABLE ledger.intent_qr_locks (
        qr_token text PRIMARY KEY,
        intent_id uuid NOT NULL UNIQUE REFERENCES ledger.transaction_intents (id),
        locked_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX "IDX_transaction_intents_expiry" ON ledger.transaction_intents (expires_at)`);
    await q.query(`CREATE INDEX "IDX_transaction_intents_source" ON ledger.transaction_intents (source_account_id)`);

    await q.query(`
      CREATE TABLE ledger.transactions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        reference_id text NOT NULL,
        type text NOT NULL CHECK (type IN ('TRANSFER', 'CASH_IN', 'CASH_OUT', 'ADJUSTMENT')),
        intent_id uuid REFERENCES ledger.transaction_intents (id),
        amount bigint NOT NULL CHECK (amount > 0),
        fee bigint NOT NULL DEFAULT 0 CHECK (fee >= 0),
        currency char(3) NOT NULL CHECK (currency IN ('XAF', 'XOF')),
        created_by text NOT NULL,
        initiated_at timestamptz NOT NULL,
        completed_at timestamptz NOT NULL DEFAULT now(),
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        CONSTRAINT "UQ_transactions_reference_id" UNIQUE (reference_id),
        CONSTRAINT "UQ_transactions_intent" UNIQUE (intent_id),
        CONSTRAINT "CHK_transactions_reference_format" CHECK (reference_id ~ '^[A-Z]{3}TX[0-9]{6}[A-Z0-9]{7}$')
      )`);
    // transaction_intents.transaction_id has no foreign key: transactions.intent_id (unique, with a
    // foreign key) is the authoritative link, and a second check would make every confirmation
    // take a SERIALIZABLE predicate lock on the transactions index page its neighbours insert into.

    await q.query(`
      CREATE TABLE ledger.ledgers (
        id uuid PRIMARY KEY,
        transaction_id uuid NOT NULL REFERENCES ledger.transactions (id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES ledger.accounts (id),
        kind text NOT NULL CHECK (kind IN ('DEBIT', 'CREDIT')),
        amount bigint NOT NULL CHECK (amount > 0),
        currency char(3) NOT NULL CHECK (currency IN ('XAF', 'XOF')),
        -- The pair link is written in the same INSERT as both entries and verified by the audit;
        -- no self foreign key (its check would read the ledgers index pages every concurrent
        -- transfer inserts into, turning SERIALIZABLE transfers into each other's conflicts).
        counterparty_ledger_id uuid NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX "IDX_ledgers_account" ON ledger.ledgers (account_id)`);
    await q.query(`CREATE INDEX "IDX_ledgers_transaction" ON ledger.ledgers (transaction_id)`);

    await q.query(`
      CREATE TABLE ledger.intent_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        intent_id uuid NOT NULL REFERENCES ledger.transaction_intents (id),
        from_status text,
        to_status text NOT NULL,
        event text NOT NULL,
        actor_id text,
        ip_address text,
        user_agent text,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX "IDX_intent_events_intent" ON ledger.intent_events (intent_id, created_at)`);

    await q.query(`
      CREATE TABLE ledger.idempotency_keys (
        scope text NOT NULL,
        key text NOT NULL,
        request_hash char(64) NOT NULL,
        response_status int NOT NULL,
        response_body json NOT NULL, -- json, not jsonb: a replay returns the stored bytes in their original key order
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (scope, key)
      )`);
    await q.query(`CREATE INDEX "IDX_idempotency_keys_expiry" ON ledger.idempotency_keys (expires_at)`);

    await q.query(`
      CREATE TABLE ledger.balance_integrity_checks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        correlation_id text,
        trigger text NOT NULL CHECK (trigger IN ('SCHEDULED', 'ON_DEMAND')),
        started_at timestamptz NOT NULL,
        finished_at timestamptz NOT NULL,
        accounts_checked int NOT NULL,
        gap_count int NOT NULL,
        status text NOT NULL CHECK (status IN ('OK', 'GAPS_FOUND')),
        currency_totals jsonb NOT NULL,
        gaps jsonb NOT NULL
      )`);

    await q.query(`
      CREATE TABLE ledger.outbox (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        event_type text NOT NULL,
        aggregate_id uuid NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz,
        attempts int NOT NULL DEFAULT 0,
        last_error text
      )`);
    await q.query(`CREATE INDEX "IDX_outbox_pending" ON ledger.outbox (created_at) WHERE published_at IS NULL`);

    // Append-only journals: the database itself refuses to rewrite history.
    await q.query(`
      CREATE FUNCTION ledger.forbid_row_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '%.% is append-only: % operation forbidden on id %', TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_OP, OLD.id
          USING ERRCODE = 'restrict_violation';
      END $$`);
    await q.query(`
      CREATE FUNCTION ledger.forbid_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '%.% is append-only: TRUNCATE operation forbidden', TG_TABLE_SCHEMA, TG_TABLE_NAME
          USING ERRCODE = 'restrict_violation';
      END $$`);
    await q.query(`
      CREATE FUNCTION ledger.forbid_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '%.% rows are never deleted: DELETE operation forbidden on id %', TG_TABLE_SCHEMA, TG_TABLE_NAME, OLD.id
          USING ERRCODE = 'restrict_violation';
      END $$`);
    for (const table of ['wallets', 'accounts']) {
      await q.query(`
        CREATE TRIGGER trg_${table}_no_delete BEFORE DELETE ON ledger.${table}
        FOR EACH ROW EXECUTE FUNCTION ledger.forbid_delete()`);
    }
    for (const table of ['ledgers', 'intent_events']) {
      await q.query(`
        CREATE TRIGGER trg_${table}_append_only BEFORE UPDATE OR DELETE ON ledger.${table}
        FOR EACH ROW EXECUTE FUNCTION ledger.forbid_row_change()`);
      await q.query(`
        CREATE TRIGGER trg_${table}_no_truncate BEFORE TRUNCATE ON ledger.${table}
        FOR EACH STATEMENT EXECUTE FUNCTION ledger.forbid_truncate()`);
    }

    // Ordered account locks taken BEFORE the money transaction's snapshot (see serializable-runner):
    // a waiter then reads the balance the holder committed instead of failing with 40001. The
    // caller passes the keys already sorted; the wait is capped like any row lock.
    await q.query(`
      CREATE FUNCTION ledger.lock_keys(keys bigint[], timeout_ms int) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE k bigint;
      BEGIN
        PERFORM set_config('lock_timeout', timeout_ms || 'ms', true);
        FOREACH k IN ARRAY keys LOOP
          PERFORM pg_advisory_lock(k);
        END LOOP;
      END $$`);

    // The technical accounts (docs/ledger.md "Wallets and accounts"), one per currency, in SYSTEM
    // wallets.
    const technical: [string, string][] = [
      ['FEE_COLLECTION', 'fee_collection'],
      ['TREASURY', 'treasury'],
      ['SUSPENSE', 'suspense'],
      ['BLACK', 'black'],
      ['AGENT_COMMISSION', 'agent_commission'],
    ];
    for (const [ownerId, type] of technical) {
      await q.query(`INSERT INTO ledger.wallets (owner_type, owner_id, holder_name) VALUES ('SYSTEM', $1, $1)`, [ownerId]);
      await q.query(
        `INSERT INTO ledger.accounts (wallet_id, account_type, currency, holder)
         SELECT w.id, $2, c.currency, $1 FROM ledger.wallets w CROSS JOIN (VALUES ('XAF'), ('XOF')) AS c (currency)
         WHERE w.owner_type = 'SYSTEM' AND w.owner_id = $1`,
        [ownerId, type],
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['outbox', 'balance_integrity_checks', 'idempotency_keys', 'intent_events', 'ledgers', 'intent_qr_locks']) {
      await q.query(`DROP TABLE IF EXISTS ledger.${t}`);
    }
    for (const t of ['transactions', 'transaction_intents', 'accounts', 'wallets']) {
      await q.query(`DROP TABLE IF EXISTS ledger.${t}`);
    }
    await q.query(`DROP FUNCTION IF EXISTS ledger.forbid_row_change()`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.forbid_truncate()`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.forbid_delete()`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.lock_keys(bigint[], int)`);
  }
}
