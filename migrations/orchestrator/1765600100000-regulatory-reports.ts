import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SERVICES } from '@mm/contracts';

const SHA256_HEX = `'^[0-9a-f]{64}$'`;

/**
 * Regulatory reports (docs/regulatory-reports.md): the daily threshold report and suspicion
 * reports, each stored once as generated and never changed.
 *
 * `regulatory_reports` holds the report as it was generated: the canonical JSON content, the CSV
 * and the printable HTML, each with its SHA-256, who generated it and when. CHECK constraints tie
 * each hash to its text, so a stored hash always describes the stored bytes. Nothing of a row may
 * change afterwards: a trigger refuses UPDATE, DELETE and TRUNCATE, whoever asks.
 *
 * What happens to a report later (filed by phone or electronically, confirmed in writing, sent, an
 * overdue alert raised) is a row of `regulatory_report_events`, append-only the same way. Each
 * event happens at most once per report (the unique key), which also makes an alert fire once.
 *
 * The runtime role may INSERT and SELECT both tables, nothing more.
 */
export class RegulatoryReports1765600100000 implements MigrationInterface {
  name = 'RegulatoryReports1765600100000';

  async up(q: QueryRunner): Promise<void> {
    const role = SERVICES.orchestrator.role;
    await q.query(`
      CREATE TABLE orchestrator.regulatory_reports (
        id uuid PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('DAILY_THRESHOLD', 'SUSPICION')),
        reference text NOT NULL UNIQUE CHECK (reference ~ '^(DTR|STR)-[0-9]{8}(-[0-9A-F]{8})?$'),
        -- the day reported (daily) or the day the report was made (suspicion), in UTC+01:00
        period_date date NOT NULL,
        case_id uuid,
        content text NOT NULL,
        content_sha256 text NOT NULL CHECK (content_sha256 ~ ${SHA256_HEX}),
        csv text NOT NULL,
        csv_sha256 text NOT NULL CHECK (csv_sha256 ~ ${SHA256_HEX}),
        html text NOT NULL,
        html_sha256 text NOT NULL CHECK (html_sha256 ~ ${SHA256_HEX}),
        operation_count int NOT NULL CHECK (operation_count >= 0),
        generated_by text NOT NULL CHECK (length(generated_by) BETWEEN 1 AND 64),
        generated_by_role text NOT NULL CHECK (length(generated_by_role) BETWEEN 1 AND 32),
        trigger text NOT NULL CHECK (trigger IN ('SCHEDULED', 'ON_DEMAND')),
        generated_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        CONSTRAINT "CHK_regulatory_reports_content_hash" CHECK (content_sha256 = encode(sha256(convert_to(content, 'UTF8')), 'hex')),
        CONSTRAINT "CHK_regulatory_reports_csv_hash" CHECK (csv_sha256 = encode(sha256(convert_to(csv, 'UTF8')), 'hex')),
        CONSTRAINT "CHK_regulatory_reports_html_hash" CHECK (html_sha256 = encode(sha256(convert_to(html, 'UTF8')), 'hex')),
        CONSTRAINT "CHK_regulatory_reports_kind" CHECK ((kind = 'SUSPICION') = (case_id IS NOT NULL))
      )`);
    // One daily report per day (a second generation returns the first), one suspicion report per case.
    await q.query(
      `CREATE UNIQUE INDEX "UQ_regulatory_reports_daily" ON orchestrator.regulatory_reports (period_date) WHERE kind = 'DAILY_THRESHOLD'`,
    );
    await q.query(
      `CREATE UNIQUE INDEX "UQ_regulatory_reports_case" ON orchestrator.regulatory_reports (case_id) WHERE case_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX "IDX_regulatory_reports_generated" ON orchestrator.regulatory_reports (generated_at DESC, id DESC)`);

    await q.query(`
      CREATE TABLE orchestrator.regulatory_report_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        report_id uuid NOT NULL REFERENCES orchestrator.regulatory_reports (id),
        event text NOT NULL CHECK (event IN ('FILED', 'WRITTEN_CONFIRMATION', 'SENT', 'DUE_SOON_ALERTED', 'OVERDUE_ALERTED')),
        -- the staff member who acted, or 'system' for the deadline job's alerts
        actor_id text NOT NULL CHECK (length(actor_id) BETWEEN 1 AND 64),
        actor_role text NOT NULL CHECK (length(actor_role) BETWEEN 1 AND 32),
        channel text CHECK (channel IN ('PHONE', 'ELECTRONIC', 'PAPER', 'HAND_DELIVERY')),
        external_reference text CHECK (length(external_reference) BETWEEN 1 AND 200),
        note text CHECK (length(note) BETWEEN 1 AND 1000),
        -- when it happened as the officer declares it (a phone call made before it was recorded here)
        occurred_at timestamptz NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        CONSTRAINT "UQ_regulatory_report_events_once" UNIQUE (report_id, event),
        CONSTRAINT "CHK_regulatory_report_events_channel" CHECK ((event IN ('FILED', 'SENT')) = (channel IS NOT NULL))
      )`);
    // The deadline job's scan: filed reports, and the events that settle them.
    await q.query(`CREATE INDEX "IDX_regulatory_report_events_event" ON orchestrator.regulatory_report_events (event, occurred_at)`);

    await q.query(`
      CREATE FUNCTION orchestrator.regulatory_reports_forbid_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '%.% is immutable: % operation forbidden', TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_OP
          USING ERRCODE = 'restrict_violation';
      END $$`);
    for (const table of ['regulatory_reports', 'regulatory_report_events']) {
      await q.query(`
        CREATE TRIGGER trg_${table}_immutable BEFORE UPDATE OR DELETE ON orchestrator.${table}
        FOR EACH ROW EXECUTE FUNCTION orchestrator.regulatory_reports_forbid_change()`);
      await q.query(`
        CREATE TRIGGER trg_${table}_no_truncate BEFORE TRUNCATE ON orchestrator.${table}
        FOR EACH STATEMENT EXECUTE FUNCTION orchestrator.regulatory_reports_forbid_change()`);
      // default privileges gave the runtime role every row privilege: it appends and reads
      await q.query(`REVOKE UPDATE, DELETE, TRUNCATE ON orchestrator.${table} FROM ${role}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS orchestrator.regulatory_report_events`);
    await q.query(`DROP TABLE IF EXISTS orchestrator.regulatory_reports`);
    await q.query(`DROP FUNCTION IF EXISTS orchestrator.regulatory_reports_forbid_change()`);
  }
}
