import type { MigrationInterface, QueryRunner } from 'typeorm';

const BEFORE = `'FILED', 'WRITTEN_CONFIRMATION', 'SENT', 'DUE_SOON_ALERTED', 'OVERDUE_ALERTED'`;

/**
 * A suspicion report has a filing deadline too (docs/regulatory-reports.md "Lifecycle and deadlines"): the
 * deadline job records its alerts as two more events of the report, FILING_DUE_SOON_ALERTED and
 * FILING_OVERDUE_ALERTED, once each (the existing unique key on report and event). The written
 * confirmation's alerts keep their names. Only the list of events a row may hold changes: no row is
 * touched, and the table stays append-only.
 */
export class RegulatoryFilingDeadline1765600900000 implements MigrationInterface {
  name = 'RegulatoryFilingDeadline1765600900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orchestrator.regulatory_report_events DROP CONSTRAINT regulatory_report_events_event_check`);
    await q.query(`
      ALTER TABLE orchestrator.regulatory_report_events ADD CONSTRAINT "CHK_regulatory_report_events_event"
        CHECK (event IN (${BEFORE}, 'FILING_DUE_SOON_ALERTED', 'FILING_OVERDUE_ALERTED'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orchestrator.regulatory_report_events DROP CONSTRAINT "CHK_regulatory_report_events_event"`);
    await q.query(
      `ALTER TABLE orchestrator.regulatory_report_events ADD CONSTRAINT regulatory_report_events_event_check CHECK (event IN (${BEFORE}))`,
    );
  }
}
