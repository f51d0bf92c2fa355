import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SERVICES } from '@mm/contracts';

const ROLE = SERVICES.orchestrator.role;
const MAX = '9007199254740991';

/**
 * Transaction monitoring (docs/monitoring.md): the operations the ledger reported as completed, the
 * alerts the rules raised on them, the compliance cases grouping those alerts per person with their
 * append-only history, and the rules that failed. Plus version 1 of the `monitoring` configuration
 * section (a literal on purpose: a migration writes the same rows forever).
 *
 * Guards in the database, as the last line of defence: operations, alerts, case events and rule
 * failures are append-only (triggers, and the runtime role holds only SELECT and INSERT on them); a
 * person has at most one case that is not closed (partial unique index); a closed case never changes
 * and no case is ever deleted.
 */
export class TransactionMonitoring1765600000000 implements MigrationInterface {
  name = 'TransactionMonitoring1765600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION orchestrator.monitoring_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '%.% is append-only: % operation forbidden', TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_OP
          USING ERRCODE = 'restrict_violation';
      END $$`);

    // One row per ledger event (idempotent on its id). The owners are resolved once, at ingestion:
    // an account never changes hands, so the rules query by person without a join.
    await q.query(`
      CREATE TABLE orchestrator.monitored_operations (
        event_id               uuid PRIMARY KEY,
        transaction_id         uuid NOT NULL,
        reference              text NOT NULL CHECK (length(reference) BETWEEN 1 AND 64),
        intent_type            text NOT NULL CHECK (intent_type IN ('TRANSFER', 'CASH_IN', 'CASH_OUT')),
        amount                 bigint NOT NULL CHECK (amount > 0 AND amount <= ${MAX}),
        fee                    bigint NOT NULL CHECK (fee >= 0 AND fee <= ${MAX}),
        currency               text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
        source_account_id      uuid NOT NULL,
        destination_account_id uuid NOT NULL,
        source_user_id         uuid,
        source_kind            text CHECK (source_kind IN ('CUSTOMER', 'AGENT', 'MERCHANT')),
        destination_user_id    uuid,
        destination_kind       text CHECK (destination_kind IN ('CUSTOMER', 'AGENT', 'MERCHANT')),
        occurred_at            timestamptz NOT NULL,
        received_at            timestamptz NOT NULL DEFAULT now(),
        CHECK ((source_user_id IS NULL) = (source_kind IS NULL)),
        CHECK ((destination_user_id IS NULL) = (destination_kind IS NULL))
      )`);
    await q.query(`CREATE INDEX monitored_operations_source_idx ON orchestrator.monitored_operations (source_user_id, occurred_at)`);
    await q.query(
      `CREATE INDEX monitored_operations_destination_idx ON orchestrator.monitored_operations (destination_user_id, occurred_at)`,
    );
    await q.query(`CREATE INDEX monitored_operations_reference_idx ON orchestrator.monitored_operations (reference)`);
    await q.query(`CREATE INDEX monitored_operations_occurred_idx ON orchestrator.monitored_operations (occurred_at)`);

    await q.query(`
      CREATE TABLE orchestrator.monitoring_cases (
        id                  uuid PRIMARY KEY,
        number              bigserial NOT NULL UNIQUE,
        reference           text GENERATED ALWAYS AS ('MC-' || lpad(number::text, 6, '0')) STORED,
        subject_user_id     uuid NOT NULL,
        subject_kind        text NOT NULL CHECK (subject_kind IN ('CUSTOMER', 'AGENT', 'MERCHANT')),
        status              text NOT NULL CHECK (status IN ('OPEN', 'IN_REVIEW', 'DECISION_PENDING', 'CLOSED')),
        assignee_id         uuid,
        assigned_at         timestamptz,
        first_assigned_at   timestamptz,
        opened_at           timestamptz NOT NULL DEFAULT now(),
        first_alert_at      timestamptz NOT NULL,
        last_alert_at       timestamptz NOT NULL,
        -- the FREEZE request waiting for a second officer while the case is DECISION_PENDING
        pending_request_id  uuid,
        decision            text CHECK (decision IN ('NO_ACTION', 'FREEZE', 'SUSPICION_REPORT')),
        decision_note       text CHECK (length(decision_note) BETWEEN 1 AND 2000),
        decided_by          uuid,
        decided_at          timestamptz,
        decision_request_id uuid,
        decision_report_id  uuid,
        CHECK ((status = 'CLOSED') = (decision IS NOT NULL AND decided_by IS NOT NULL AND decided_at IS NOT NULL)),
        CHECK ((status = 'DECISION_PENDING') = (pending_request_id IS NOT NULL)),
        CHECK ((status = 'IN_REVIEW') <= (assignee_id IS NOT NULL)),
        CHECK ((assignee_id IS NULL) = (assigned_at IS NULL)),
        CHECK (decision IS DISTINCT FROM 'FREEZE' OR decision_request_id IS NOT NULL),
        CHECK (decision IS DISTINCT FROM 'SUSPICION_REPORT' OR decision_report_id IS NOT NULL)
      )`);
    // A person's alerts gather in their one case that is not closed.
    await q.query(
      `CREATE UNIQUE INDEX monitoring_cases_open_subject_idx ON orchestrator.monitoring_cases (subject_user_id) WHERE status <> 'CLOSED'`,
    );
    await q.query(`CREATE INDEX monitoring_cases_opened_idx ON orchestrator.monitoring_cases (opened_at DESC, id DESC)`);
    await q.query(`
      CREATE FUNCTION orchestrator.monitoring_cases_guard() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_LEVEL = 'STATEMENT' OR TG_OP = 'DELETE' THEN
          RAISE EXCEPTION 'orchestrator.monitoring_cases: % operation forbidden', TG_OP USING ERRCODE = 'restrict_violation';
        END IF;
        IF OLD.status = 'CLOSED' THEN
          RAISE EXCEPTION 'orchestrator.monitoring_cases %: a closed case never changes', OLD.id USING ERRCODE = 'restrict_violation';
        END IF;
        IF (NEW.id, NEW.number, NEW.subject_user_id, NEW.subject_kind, NEW.opened_at, NEW.first_alert_at)
           IS DISTINCT FROM (OLD.id, OLD.number, OLD.subject_user_id, OLD.subject_kind, OLD.opened_at, OLD.first_alert_at) THEN
          RAISE EXCEPTION 'orchestrator.monitoring_cases %: its subject and opening never change', OLD.id USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER trg_monitoring_cases_guard BEFORE UPDATE OR DELETE ON orchestrator.monitoring_cases
        FOR EACH ROW EXECUTE FUNCTION orchestrator.monitoring_cases_guard()`);
    await q.query(`
      CREATE TRIGGER trg_monitoring_cases_no_truncate BEFORE TRUNCATE ON orchestrator.monitoring_cases
        FOR EACH STATEMENT EXECUTE FUNCTION orchestrator.monitoring_cases_guard()`);

    // One alert per rule, subject, currency, scope and window end: processing the same operation twice
    // finds the alert already there.
    await q.query(`
      CREATE TABLE orchestrator.monitoring_alerts (
        id               uuid PRIMARY KEY,
        rule             text NOT NULL CHECK (rule ~ '^[A-Z][A-Z_]{1,39}$'),
        subject_user_id  uuid NOT NULL,
        subject_kind     text NOT NULL CHECK (subject_kind IN ('CUSTOMER', 'AGENT', 'MERCHANT')),
        currency         text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
        -- narrows the subject where a rule is about a pair (the customer an agent cycles cash with), else ''
        scope            text NOT NULL DEFAULT '' CHECK (length(scope) <= 64),
        window_start     timestamptz NOT NULL,
        window_end       timestamptz NOT NULL,
        config_version   integer NOT NULL CHECK (config_version > 0),
        reason           text NOT NULL CHECK (length(reason) BETWEEN 1 AND 1000),
        figures          jsonb NOT NULL CHECK (jsonb_typeof(figures) = 'object'),
        transaction_ids  uuid[] NOT NULL CHECK (cardinality(transaction_ids) >= 1),
        trigger_event_id uuid NOT NULL REFERENCES orchestrator.monitored_operations (event_id),
        case_id          uuid NOT NULL REFERENCES orchestrator.monitoring_cases (id),
        raised_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
        CHECK (window_start <= window_end),
        UNIQUE (rule, subject_user_id, currency, scope, window_end)
      )`);
    await q.query(
      `CREATE INDEX monitoring_alerts_subject_idx ON orchestrator.monitoring_alerts (rule, subject_user_id, currency, scope, window_end DESC)`,
    );
    await q.query(`CREATE INDEX monitoring_alerts_case_idx ON orchestrator.monitoring_alerts (case_id, raised_at)`);
    await q.query(`CREATE INDEX monitoring_alerts_raised_idx ON orchestrator.monitoring_alerts (raised_at DESC, id DESC)`);

    await q.query(`
      CREATE TABLE orchestrator.monitoring_case_events (
        id       bigserial PRIMARY KEY,
        case_id  uuid NOT NULL REFERENCES orchestrator.monitoring_cases (id),
        kind     text NOT NULL CHECK (kind IN ('OPENED', 'ALERT_ADDED', 'ASSIGNED', 'NOTE', 'EVIDENCE', 'DECISION_REQUESTED',
                                               'DECISION_WITHDRAWN', 'DECIDED')),
        -- null: the platform itself (the monitoring feed)
        actor_id uuid,
        details  jsonb NOT NULL CHECK (jsonb_typeof(details) = 'object'),
        at       timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX monitoring_case_events_case_idx ON orchestrator.monitoring_case_events (case_id, id)`);

    await q.query(`
      CREATE TABLE orchestrator.monitoring_rule_failures (
        id             bigserial PRIMARY KEY,
        rule           text NOT NULL CHECK (rule ~ '^[A-Z][A-Z_]{1,39}$'),
        event_id       uuid NOT NULL,
        config_version integer NOT NULL,
        error          text NOT NULL CHECK (length(error) BETWEEN 1 AND 1000),
        at             timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX monitoring_rule_failures_at_idx ON orchestrator.monitoring_rule_failures (at DESC, id DESC)`);

    for (const table of ['monitored_operations', 'monitoring_alerts', 'monitoring_case_events', 'monitoring_rule_failures']) {
      await q.query(`
        CREATE TRIGGER trg_${table}_append_only BEFORE UPDATE OR DELETE ON orchestrator.${table}
          FOR EACH ROW EXECUTE FUNCTION orchestrator.monitoring_append_only()`);
      await q.query(`
        CREATE TRIGGER trg_${table}_no_truncate BEFORE TRUNCATE ON orchestrator.${table}
          FOR EACH STATEMENT EXECUTE FUNCTION orchestrator.monitoring_append_only()`);
      await q.query(`REVOKE UPDATE, DELETE, TRUNCATE ON orchestrator.${table} FROM ${ROLE}`);
    }
    await q.query(`REVOKE DELETE, TRUNCATE ON orchestrator.monitoring_cases FROM ${ROLE}`);

    // The monitoring rules are a versioned section like pricing, limits and risk.
    await q.query(`ALTER TABLE orchestrator.config_versions DROP CONSTRAINT config_versions_section_check`);
    await q.query(
      `ALTER TABLE orchestrator.config_versions ADD CONSTRAINT config_versions_section_check
         CHECK (section IN ('pricing', 'limits', 'risk', 'monitoring'))`,
    );
    await q.query(
      `INSERT INTO orchestrator.config_versions (section, version, document, created_by, reason)
       VALUES ('monitoring', 1, $1, 'system:migration', 'Initial monitoring rules (docs/monitoring.md); to be tuned by compliance')`,
      [JSON.stringify(MONITORING_V1)],
    );
  }

  async down(q: QueryRunner): Promise<void> {
    // Versions are append-only by trigger: the monitoring rows go with the trigger briefly off.
    await q.query(`ALTER TABLE orchestrator.config_versions DISABLE TRIGGER trg_config_versions_guard`);
    await q.query(`DELETE FROM orchestrator.config_versions WHERE section = 'monitoring'`);
    await q.query(`ALTER TABLE orchestrator.config_versions ENABLE TRIGGER trg_config_versions_guard`);
    await q.query(`ALTER TABLE orchestrator.config_versions DROP CONSTRAINT config_versions_section_check`);
    await q.query(
      `ALTER TABLE orchestrator.config_versions ADD CONSTRAINT config_versions_section_check CHECK (section IN ('pricing', 'limits', 'risk'))`,
    );
    await q.query(
      `DROP TABLE IF EXISTS orchestrator.monitoring_rule_failures, orchestrator.monitoring_case_events, orchestrator.monitoring_alerts,
         orchestrator.monitoring_cases, orchestrator.monitored_operations`,
    );
    await q.query(`DROP FUNCTION IF EXISTS orchestrator.monitoring_cases_guard()`);
    await q.query(`DROP FUNCTION IF EXISTS orchestrator.monitoring_append_only()`);
  }
}

const perCurrency = (amount: number) => [
  { currency: 'XAF', amount },
  { currency: 'XOF', amount },
];

/** docs/monitoring.md explains each number. Amounts are integers in the currency's smallest unit. */
const MONITORING_V1 = {
  structuring: { enabled: true, windowSeconds: 86_400, minOperations: 3, nearThresholdPercent: 10, thresholds: perCurrency(1_000_000) },
  passThrough: { enabled: true, windowSeconds: 3_600, minOutSharePercent: 80, minAmountIn: perCurrency(200_000) },
  dormantReactivation: { enabled: true, dormantDays: 90, minAmount: perCurrency(100_000) },
  agentCycling: { enabled: true, windowSeconds: 86_400, minCycles: 3 },
  fanIn: { enabled: true, windowSeconds: 86_400, minDistinctPayers: 15, includeMerchants: false },
  agentVelocity: { enabled: true, windowSeconds: 3_600, maxOperations: 100, maxAmount: perCurrency(5_000_000) },
};
