import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Versioned money-flow configuration (fee and commission grids, limits, risk thresholds), fee
 * quotes, limit usage, risk decisions and the phone blocklist (orchestrator schema).
 *
 * The seeded version 1 of each configuration section is written here as a literal on purpose: a
 * migration must produce the same rows forever, whatever the application code later becomes.
 * docs/fees-and-limits.md explains the numbers.
 */
export class PricingRisk1764000100000 implements MigrationInterface {
  name = 'PricingRisk1764000100000';

  async up(q: QueryRunner): Promise<void> {
    // One row per version of one section. A change is a new row; the active version is the highest.
    await q.query(`
      CREATE TABLE orchestrator.config_versions (
        section    text NOT NULL CHECK (section IN ('pricing', 'limits', 'risk')),
        version    integer NOT NULL CHECK (version > 0),
        document   jsonb NOT NULL CHECK (jsonb_typeof(document) = 'object'),
        created_by text NOT NULL CHECK (length(created_by) BETWEEN 1 AND 200),
        reason     text NOT NULL CHECK (length(reason) BETWEEN 3 AND 500),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (section, version)
      )`);
    // Versions are evidence of what was charged when: never changed, never removed, never skipped.
    await q.query(`
      CREATE FUNCTION orchestrator.config_versions_guard() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        expected integer;
      BEGIN
        IF TG_LEVEL = 'STATEMENT' THEN
          RAISE EXCEPTION 'orchestrator.config_versions is append-only: TRUNCATE operation forbidden' USING ERRCODE = 'restrict_violation';
        END IF;
        IF TG_OP <> 'INSERT' THEN
          RAISE EXCEPTION 'orchestrator.config_versions is append-only: % operation forbidden on %/%', TG_OP, OLD.section, OLD.version
            USING ERRCODE = 'restrict_violation';
        END IF;
        SELECT COALESCE(MAX(version), 0) + 1 INTO expected FROM orchestrator.config_versions WHERE section = NEW.section;
        IF NEW.version <> expected THEN
          RAISE EXCEPTION 'orchestrator.config_versions: % version must be %, got %', NEW.section, expected, NEW.version
            USING ERRCODE = 'unique_violation';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER trg_config_versions_guard BEFORE INSERT OR UPDATE OR DELETE ON orchestrator.config_versions
        FOR EACH ROW EXECUTE FUNCTION orchestrator.config_versions_guard()`);
    await q.query(`CREATE TRIGGER trg_config_versions_no_truncate BEFORE TRUNCATE ON orchestrator.config_versions
        FOR EACH STATEMENT EXECUTE FUNCTION orchestrator.config_versions_guard()`);

    await q.query(
      `INSERT INTO orchestrator.config_versions (section, version, document, created_by, reason) VALUES
        ('pricing', 1, $1, 'system:migration', 'Initial defaults (docs/fees-and-limits.md); to be confirmed by finance'),
        ('limits', 1, $2, 'system:migration', 'Initial defaults (docs/fees-and-limits.md); to be set by compliance'),
        ('risk', 1, $3, 'system:migration', 'Initial defaults (docs/fees-and-limits.md); to be tuned by compliance')`,
      [JSON.stringify(PRICING_V1), JSON.stringify(LIMITS_V1), JSON.stringify(RISK_V1)],
    );

    // A fee quote given at intent creation; the confirm step settles it exactly once (charged_*).
    await q.query(`
      CREATE TABLE orchestrator.fee_quotes (
        id                   uuid PRIMARY KEY,
        operation_id         text UNIQUE CHECK (length(operation_id) BETWEEN 1 AND 200),
        type                 text NOT NULL CHECK (type IN ('TRANSFER', 'CASH_IN', 'CASH_OUT', 'MERCHANT_PAYMENT')),
        currency             text NOT NULL CHECK (currency IN ('XAF', 'XOF')),
        amount               bigint NOT NULL CHECK (amount > 0),
        fee                  bigint NOT NULL CHECK (fee >= 0),
        commission           bigint NOT NULL CHECK (commission >= 0),
        section              text NOT NULL DEFAULT 'pricing' CHECK (section = 'pricing'),
        grid_version         integer NOT NULL,
        created_at           timestamptz NOT NULL DEFAULT now(),
        expires_at           timestamptz NOT NULL,
        charged_fee          bigint CHECK (charged_fee >= 0),
        charged_commission   bigint CHECK (charged_commission >= 0),
        charged_grid_version integer,
        charge_rule          text CHECK (charge_rule IN ('QUOTE_HONOURED', 'ACTIVE_GRID_LOWER', 'QUOTE_EXPIRED')),
        requoted_at          timestamptz,
        FOREIGN KEY (section, grid_version) REFERENCES orchestrator.config_versions (section, version),
        FOREIGN KEY (section, charged_grid_version) REFERENCES orchestrator.config_versions (section, version),
        CHECK (expires_at > created_at),
        CHECK (
          (requoted_at IS NULL AND charged_fee IS NULL AND charged_commission IS NULL AND charged_grid_version IS NULL AND charge_rule IS NULL)
          OR (requoted_at IS NOT NULL AND charged_fee IS NOT NULL AND charged_commission IS NOT NULL AND charged_grid_version IS NOT NULL AND charge_rule IS NOT NULL)
        )
      )`);
    // The quote terms never change; the settlement is written once (a retried confirm reads it back).
    await q.query(`
      CREATE FUNCTION orchestrator.fee_quotes_guard() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          RAISE EXCEPTION 'orchestrator.fee_quotes is append-only: DELETE operation forbidden on id %', OLD.id USING ERRCODE = 'restrict_violation';
        END IF;
        IF (NEW.id, NEW.operation_id, NEW.type, NEW.currency, NEW.amount, NEW.fee, NEW.commission, NEW.grid_version, NEW.created_at, NEW.expires_at)
           IS DISTINCT FROM (OLD.id, OLD.operation_id, OLD.type, OLD.currency, OLD.amount, OLD.fee, OLD.commission, OLD.grid_version, OLD.created_at, OLD.expires_at)
           OR OLD.requoted_at IS NOT NULL THEN
          RAISE EXCEPTION 'orchestrator.fee_quotes: quote % is immutable once given and once settled', OLD.id USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER trg_fee_quotes_guard BEFORE UPDATE OR DELETE ON orchestrator.fee_quotes
        FOR EACH ROW EXECUTE FUNCTION orchestrator.fee_quotes_guard()`);

    // What counts against a limit: a short hold taken at confirm, settled when the payment succeeds.
    await q.query(`
      CREATE TABLE orchestrator.limit_usage (
        operation_id text NOT NULL CHECK (length(operation_id) BETWEEN 1 AND 200),
        subject_kind text NOT NULL CHECK (subject_kind IN ('CUSTOMER', 'AGENT')),
        subject_id   text NOT NULL CHECK (length(subject_id) BETWEEN 1 AND 200),
        currency     text NOT NULL CHECK (currency IN ('XAF', 'XOF')),
        type         text NOT NULL CHECK (type IN ('TRANSFER', 'CASH_IN', 'CASH_OUT', 'MERCHANT_PAYMENT')),
        amount       bigint NOT NULL CHECK (amount > 0),
        status       text NOT NULL CHECK (status IN ('HELD', 'SETTLED', 'RELEASED')),
        occurred_at  timestamptz NOT NULL,
        held_until   timestamptz,
        settled_at   timestamptz,
        released_at  timestamptz,
        PRIMARY KEY (operation_id, subject_kind, subject_id),
        CHECK (status <> 'SETTLED' OR settled_at IS NOT NULL),
        CHECK (status <> 'RELEASED' OR released_at IS NOT NULL)
      )`);
    await q.query(`
      CREATE INDEX limit_usage_window_idx ON orchestrator.limit_usage (subject_kind, subject_id, currency, occurred_at)
        WHERE status <> 'RELEASED'`);
    // Money that moved stays counted: a settled row is final.
    await q.query(`
      CREATE FUNCTION orchestrator.limit_usage_guard() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          RAISE EXCEPTION 'orchestrator.limit_usage: DELETE forbidden on operation %', OLD.operation_id USING ERRCODE = 'restrict_violation';
        END IF;
        IF OLD.status = 'SETTLED' AND NEW IS DISTINCT FROM OLD THEN
          RAISE EXCEPTION 'orchestrator.limit_usage: settled usage of operation % is final', OLD.operation_id USING ERRCODE = 'restrict_violation';
        END IF;
        IF NEW.amount <> OLD.amount OR NEW.currency <> OLD.currency THEN
          RAISE EXCEPTION 'orchestrator.limit_usage: amount and currency of operation % are immutable', OLD.operation_id USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER trg_limit_usage_guard BEFORE UPDATE OR DELETE ON orchestrator.limit_usage
        FOR EACH ROW EXECUTE FUNCTION orchestrator.limit_usage_guard()`);

    // Every risk evaluation, with its signals; the first decision of an operation at a stage stands.
    await q.query(`
      CREATE TABLE orchestrator.risk_decisions (
        id            uuid PRIMARY KEY,
        operation_id  text NOT NULL CHECK (length(operation_id) BETWEEN 1 AND 200),
        intent_id     text,
        stage         text NOT NULL CHECK (stage IN ('CREATE', 'CONFIRM')),
        outcome       text NOT NULL CHECK (outcome IN ('ACCEPT', 'REJECT')),
        reason_code   text,
        signals       jsonb NOT NULL CHECK (jsonb_typeof(signals) = 'array'),
        rules_version integer NOT NULL,
        section       text NOT NULL DEFAULT 'risk' CHECK (section = 'risk'),
        initiator_id  text NOT NULL,
        device_id     text,
        type          text NOT NULL,
        amount        bigint NOT NULL CHECK (amount > 0),
        currency      text NOT NULL,
        created_at    timestamptz NOT NULL DEFAULT now(),
        UNIQUE (operation_id, stage),
        FOREIGN KEY (section, rules_version) REFERENCES orchestrator.config_versions (section, version),
        CHECK ((outcome = 'REJECT') = (reason_code IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX risk_decisions_initiator_idx ON orchestrator.risk_decisions (initiator_id, created_at DESC)`);
    await q.query(`
      CREATE FUNCTION orchestrator.risk_decisions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'orchestrator.risk_decisions is append-only: % operation forbidden on id %', TG_OP, OLD.id USING ERRCODE = 'restrict_violation';
      END $$`);
    await q.query(`
      CREATE TRIGGER trg_risk_decisions_append_only BEFORE UPDATE OR DELETE ON orchestrator.risk_decisions
        FOR EACH ROW EXECUTE FUNCTION orchestrator.risk_decisions_append_only()`);

    // Who already paid whom successfully: the "new recipient" signal.
    await q.query(`
      CREATE TABLE orchestrator.risk_counterparties (
        payer_id           text NOT NULL,
        payee_id           text NOT NULL,
        first_operation_id text NOT NULL,
        first_paid_at      timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (payer_id, payee_id)
      )`);

    // Phones nobody may pay or be paid by. Removal is recorded, never deleted.
    await q.query(`
      CREATE TABLE orchestrator.risk_blocklist (
        id             uuid PRIMARY KEY,
        phone          text NOT NULL CHECK (phone ~ '^\\+[1-9][0-9]{7,14}$'),
        list           text NOT NULL CHECK (list IN ('SANCTIONS', 'FRAUD', 'INTERNAL')),
        reason         text NOT NULL CHECK (length(reason) BETWEEN 3 AND 500),
        added_by       text NOT NULL,
        added_at       timestamptz NOT NULL DEFAULT now(),
        removed_by     text,
        removed_at     timestamptz,
        removal_reason text,
        CHECK ((removed_at IS NULL) = (removed_by IS NULL)),
        CHECK ((removed_at IS NULL) = (removal_reason IS NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX risk_blocklist_active_phone_idx ON orchestrator.risk_blocklist (phone) WHERE removed_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE IF EXISTS orchestrator.risk_blocklist, orchestrator.risk_counterparties, orchestrator.risk_decisions,
        orchestrator.limit_usage, orchestrator.fee_quotes, orchestrator.config_versions`);
    await q.query(`
      DROP FUNCTION IF EXISTS orchestrator.risk_decisions_append_only(), orchestrator.limit_usage_guard(),
        orchestrator.fee_quotes_guard(), orchestrator.config_versions_guard()`);
  }
}

const TYPES = ['TRANSFER', 'CASH_IN', 'CASH_OUT', 'MERCHANT_PAYMENT'] as const;
const CURRENCIES = ['XAF', 'XOF'] as const;
type Band = { from: number; to: number | null; fixed: number; rateBps: number };

/** Same numbers for XAF and XOF: both francs are pegged to the euro at the same rate. */
const perCurrency = <T extends object>(rows: T[]): Array<T & { currency: string }> =>
  CURRENCIES.flatMap((currency) => rows.map((row) => ({ ...row, currency })));

const FREE: Band[] = [{ from: 1, to: null, fixed: 0, rateBps: 0 }];
const FEE_BANDS: Record<(typeof TYPES)[number], Band[]> = {
  TRANSFER: [
    { from: 1, to: 5_000, fixed: 50, rateBps: 0 },
    { from: 5_001, to: 50_000, fixed: 0, rateBps: 100 },
    { from: 50_001, to: null, fixed: 250, rateBps: 50 },
  ],
  CASH_IN: FREE,
  CASH_OUT: [
    { from: 1, to: 5_000, fixed: 100, rateBps: 0 },
    { from: 5_001, to: 50_000, fixed: 0, rateBps: 200 },
    { from: 50_001, to: null, fixed: 500, rateBps: 100 },
  ],
  MERCHANT_PAYMENT: FREE,
};

const PRICING_V1 = {
  quoteValiditySeconds: 900,
  fees: perCurrency(TYPES.map((type) => ({ type, bands: FEE_BANDS[type] }))),
  commissions: perCurrency([
    { type: 'CASH_IN', bands: [{ from: 1, to: null, fixed: 0, rateBps: 50 }] },
    {
      type: 'CASH_OUT',
      bands: [
        { from: 1, to: 5_000, fixed: 40, rateBps: 0 },
        { from: 5_001, to: 50_000, fixed: 0, rateBps: 80 },
        { from: 50_001, to: null, fixed: 200, rateBps: 40 },
      ],
    },
  ]),
};

const LIMITS_V1 = {
  timezone: 'Africa/Douala',
  holdSeconds: 300,
  amounts: perCurrency([
    { type: 'TRANSFER', min: 100, max: 2_000_000 },
    { type: 'CASH_IN', min: 500, max: 2_000_000 },
    { type: 'CASH_OUT', min: 500, max: 1_000_000 },
    { type: 'MERCHANT_PAYMENT', min: 100, max: 2_000_000 },
  ]),
  tiers: perCurrency([
    { tier: 'TIER_1', singleMax: 100_000, dailyMax: 200_000, monthlyMax: 1_000_000, balanceMax: 500_000 },
    { tier: 'TIER_2', singleMax: 500_000, dailyMax: 1_000_000, monthlyMax: 5_000_000, balanceMax: 2_000_000 },
    { tier: 'TIER_3', singleMax: 2_000_000, dailyMax: 5_000_000, monthlyMax: 20_000_000, balanceMax: 10_000_000 },
  ]),
  agents: perCurrency([{ perOperationMax: 2_000_000, dailyMax: 10_000_000 }]),
};

const RISK_V1 = {
  velocity: { windowSeconds: 600, maxPerCustomer: 10, maxPerAgent: 60, maxPerMerchant: 30, maxPerDevice: 15 },
  newRecipientHighAmountPercent: 80,
};
