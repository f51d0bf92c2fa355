import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SERVICES } from '@mm/contracts';

/**
 * A reconciliation difference is alerted once while its alert is not resolved
 * (docs/reconciliation.md, "Runs and alerts").
 *
 * - `reconciliation_alert_keys`: the identity of the difference each alert is about: its
 *   statement, its kind and its evidence key (`line:<line no>` for a bank line, `movement:<ledger
 *   transaction id>` for a ledger movement, `gap:<signed difference>` for the balance gap), and
 *   which occurrence of that difference it is (1, then 2 once the first alert was resolved and a
 *   later run found the difference again). The unique key on (statement, kind, evidence key,
 *   occurrence) stops two runs, even concurrent ones, from alerting the same difference twice; the
 *   trigger refuses an occurrence that does not follow resolved ones, so a second alert cannot be
 *   opened beside one still open or acknowledged. A deferred trigger on the alerts makes every
 *   alert carry its key by the end of its transaction.
 * - `reconciliation_alert_sightings`: each unresolved alert a later run of the same statement found
 *   again (the run opened nothing for it).
 *
 * An alert's state lives in its decisions, not in these rows, so both tables are append-only like
 * the other reconciliation tables: the runtime role may only read and insert. Alerts written before
 * this migration get their keys here, numbered in the order they were opened.
 */
export class ReconciliationAlertIdentity1765600500000 implements MigrationInterface {
  name = 'ReconciliationAlertIdentity1765600500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE ledger.reconciliation_alert_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        alert_id uuid NOT NULL REFERENCES ledger.reconciliation_alerts (id),
        statement_id uuid NOT NULL REFERENCES ledger.bank_statements (id),
        kind text NOT NULL CHECK (kind IN ('BALANCE_GAP', 'UNMATCHED_BANK_LINE', 'UNMATCHED_LEDGER_MOVEMENT')),
        evidence_key text NOT NULL CHECK (evidence_key ~ '^(line:[1-9][0-9]*|movement:[0-9a-f-]{36}|gap:-?[1-9][0-9]*)$'),
        occurrence int NOT NULL CHECK (occurrence >= 1),
        CONSTRAINT "UQ_reconciliation_alert_keys_alert" UNIQUE (alert_id),
        CONSTRAINT "UQ_reconciliation_alert_keys_difference" UNIQUE (statement_id, kind, evidence_key, occurrence)
      )`);
    await q.query(`
      INSERT INTO ledger.reconciliation_alert_keys (alert_id, statement_id, kind, evidence_key, occurrence)
      SELECT k.id, k.statement_id, k.kind, k.evidence_key,
             row_number() OVER (PARTITION BY k.statement_id, k.kind, k.evidence_key ORDER BY k.created_at, k.id)
        FROM (SELECT a.id, r.statement_id, a.kind, a.created_at,
                     CASE a.kind WHEN 'BALANCE_GAP' THEN 'gap:' || a.amount
                                 WHEN 'UNMATCHED_BANK_LINE' THEN 'line:' || (a.evidence -> 'line' ->> 'lineNo')
                                 ELSE 'movement:' || (a.evidence -> 'movement' ->> 'transactionId') END AS evidence_key
                FROM ledger.reconciliation_alerts a JOIN ledger.reconciliation_runs r ON r.id = a.run_id) k`);

    // The key describes its own alert (same kind, a run of that statement), and a new occurrence
    // comes only after every earlier one was resolved (stage 2 decision).
    await q.query(`
      CREATE FUNCTION ledger.reconciliation_alert_key_allowed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE earlier int; unresolved int;
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM ledger.reconciliation_alerts a JOIN ledger.reconciliation_runs r ON r.id = a.run_id
                        WHERE a.id = NEW.alert_id AND a.kind = NEW.kind AND r.statement_id = NEW.statement_id) THEN
          RAISE EXCEPTION 'the key of reconciliation alert % names another kind or statement', NEW.alert_id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alert_keys_alert';
        END IF;
        SELECT count(*), count(*) FILTER (WHERE NOT EXISTS (
                 SELECT 1 FROM ledger.reconciliation_alert_decisions d WHERE d.alert_id = k.alert_id AND d.stage = 2))
          INTO earlier, unresolved
          FROM ledger.reconciliation_alert_keys k
         WHERE k.statement_id = NEW.statement_id AND k.kind = NEW.kind AND k.evidence_key = NEW.evidence_key;
        IF unresolved > 0 OR NEW.occurrence <> earlier + 1 THEN
          RAISE EXCEPTION 'difference % % of statement % already has an alert that is not resolved', NEW.kind, NEW.evidence_key, NEW.statement_id
            USING ERRCODE = 'unique_violation', CONSTRAINT = 'UQ_reconciliation_alert_keys_difference';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER trg_reconciliation_alert_keys_allowed BEFORE INSERT ON ledger.reconciliation_alert_keys
      FOR EACH ROW EXECUTE FUNCTION ledger.reconciliation_alert_key_allowed()`);

    await q.query(`
      CREATE FUNCTION ledger.reconciliation_alert_has_key() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM ledger.reconciliation_alert_keys WHERE alert_id = NEW.id) THEN
          RAISE EXCEPTION 'reconciliation alert % has no difference key', NEW.id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alerts_key';
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER trg_reconciliation_alerts_key AFTER INSERT ON ledger.reconciliation_alerts
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger.reconciliation_alert_has_key()`);

    await q.query(`
      CREATE TABLE ledger.reconciliation_alert_sightings (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        run_id uuid NOT NULL REFERENCES ledger.reconciliation_runs (id),
        alert_id uuid NOT NULL REFERENCES ledger.reconciliation_alerts (id),
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "UQ_reconciliation_alert_sightings" UNIQUE (run_id, alert_id)
      )`);
    await q.query(`CREATE INDEX "IDX_reconciliation_alert_sightings_alert" ON ledger.reconciliation_alert_sightings (alert_id)`);
    // A run sees again only an alert of its own statement that an earlier run opened.
    await q.query(`
      CREATE FUNCTION ledger.reconciliation_sighting_allowed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM ledger.reconciliation_runs r JOIN ledger.reconciliation_alert_keys k ON k.statement_id = r.statement_id
                         JOIN ledger.reconciliation_alerts a ON a.id = k.alert_id
                        WHERE r.id = NEW.run_id AND k.alert_id = NEW.alert_id AND a.run_id <> NEW.run_id) THEN
          RAISE EXCEPTION 'run % cannot see alert % again: not an earlier alert of its statement', NEW.run_id, NEW.alert_id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alert_sightings_statement';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER trg_reconciliation_alert_sightings_allowed BEFORE INSERT ON ledger.reconciliation_alert_sightings
      FOR EACH ROW EXECUTE FUNCTION ledger.reconciliation_sighting_allowed()`);

    for (const table of TABLES) {
      await q.query(`
        CREATE TRIGGER trg_${table}_append_only BEFORE UPDATE OR DELETE ON ledger.${table}
        FOR EACH ROW EXECUTE FUNCTION ledger.forbid_row_change()`);
      await q.query(`
        CREATE TRIGGER trg_${table}_no_truncate BEFORE TRUNCATE ON ledger.${table}
        FOR EACH STATEMENT EXECUTE FUNCTION ledger.forbid_truncate()`);
      // The schema's default privileges gave the runtime role every row privilege: it reads and appends only.
      await q.query(`REVOKE UPDATE, DELETE, TRUNCATE ON ledger.${table} FROM ${SERVICES['ledger-wallets'].role}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER IF EXISTS trg_reconciliation_alerts_key ON ledger.reconciliation_alerts`);
    for (const table of [...TABLES].reverse()) await q.query(`DROP TABLE IF EXISTS ledger.${table}`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.reconciliation_sighting_allowed()`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.reconciliation_alert_has_key()`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.reconciliation_alert_key_allowed()`);
  }
}

const TABLES = ['reconciliation_alert_keys', 'reconciliation_alert_sightings'];
