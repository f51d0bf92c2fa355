import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type RawQueryable, queryRows, withSessionLock } from '@mm/platform';
import { OrchestratorConfig } from '../orchestrator.config';
import type { ReportKind } from './report-content';

/** The written confirmation of a report filed by phone or electronically is due this long after the filing. */
export const CONFIRMATION_DEADLINE_HOURS = 48;

export const REPORT_STATES = ['GENERATED', 'FILED', 'CONFIRMED', 'SENT'] as const;
export type ReportState = (typeof REPORT_STATES)[number];
export const DEADLINE_ALERTS = ['DUE_SOON_ALERTED', 'OVERDUE_ALERTED', 'FILING_DUE_SOON_ALERTED', 'FILING_OVERDUE_ALERTED'] as const;
export type DeadlineAlertEvent = (typeof DEADLINE_ALERTS)[number];
export const REPORT_EVENTS = ['FILED', 'WRITTEN_CONFIRMATION', 'SENT', ...DEADLINE_ALERTS] as const;
export type ReportEvent = (typeof REPORT_EVENTS)[number];
/** The step a suspicion report waits for: its filing (by phone or electronically), then its written confirmation. */
export type ReportDeadline = 'FILING' | 'WRITTEN_CONFIRMATION';
export type ReportTrigger = 'SCHEDULED' | 'ON_DEMAND';

export interface NewReport {
  id: string;
  kind: ReportKind;
  reference: string;
  periodDate: string;
  caseId: string | null;
  content: string;
  contentSha256: string;
  csv: string;
  csvSha256: string;
  html: string;
  htmlSha256: string;
  operationCount: number;
  generatedBy: string;
  generatedByRole: string;
  trigger: ReportTrigger;
}

export interface NewEvent {
  reportId: string;
  event: ReportEvent;
  actorId: string;
  actorRole: string;
  channel: string | null;
  externalReference: string | null;
  note: string | null;
  occurredAt: Date;
  /** the server's time of the recording (the reports' clock), never the officer's */
  recordedAt: Date;
}

export interface ReportRow {
  id: string;
  kind: ReportKind;
  reference: string;
  period_date: string;
  case_id: string | null;
  operation_count: number;
  generated_by: string;
  generated_by_role: string;
  trigger: ReportTrigger;
  generated_at: Date;
  content_sha256: string;
  csv_sha256: string;
  html_sha256: string;
  state: ReportState;
  f_channel: string | null;
  f_at: Date | null;
  f_by: string | null;
  f_rec: Date | null;
  f_late: boolean | null;
  w_at: Date | null;
  w_by: string | null;
  w_ref: string | null;
  w_rec: Date | null;
  w_late: boolean | null;
  s_channel: string | null;
  s_at: Date | null;
  s_by: string | null;
  s_ref: string | null;
  s_rec: Date | null;
  deadline: ReportDeadline | null;
  filing_due_at: Date;
  due_at: Date | null;
  overdue: boolean;
  due_soon: boolean;
  alerts: string[];
}

export interface StoredDocuments {
  kind: ReportKind;
  reference: string;
  content: string;
  content_sha256: string;
  csv: string;
  csv_sha256: string;
  html: string;
  html_sha256: string;
}

export interface ReportFilter {
  kind?: ReportKind;
  state?: ReportState;
  dateFrom?: string;
  dateTo?: string;
  deadline?: 'OVERDUE' | 'DUE_SOON';
  before?: [string, string];
  limit: number;
}

/**
 * A report with its state and deadline as of `$1` (now), `$2` (the due-soon window in hours) and `$3`
 * (the hours a suspicion report has to be filed): a daily report is GENERATED until SENT; a
 * suspicion report is GENERATED (its filing due `$3` hours after it was made), FILED (by phone or
 * electronically: its written confirmation is due 48 hours after the filing) and CONFIRMED once
 * confirmed in writing (which may also come first, with no filing before it, and then is its
 * filing). A step is `late` when it happened or was recorded after its deadline: the recorded time
 * is the server's, which the officer cannot set back.
 */
const REPORTS = `
  SELECT x.*, (x.due_at IS NOT NULL AND x.due_at <= $1::timestamptz) AS overdue,
         (x.due_at IS NOT NULL AND x.due_at > $1::timestamptz AND x.due_at <= $1::timestamptz + make_interval(hours => $2::int)) AS due_soon
    FROM (
      SELECT y.*,
             CASE WHEN y.kind = 'SUSPICION' AND y.f_at IS NULL AND y.w_at IS NULL THEN 'FILING'
                  WHEN y.f_at IS NOT NULL AND y.w_at IS NULL THEN 'WRITTEN_CONFIRMATION' END AS deadline,
             CASE WHEN y.kind = 'SUSPICION' AND y.f_at IS NULL AND y.w_at IS NULL THEN y.filing_due_at
                  WHEN y.f_at IS NOT NULL AND y.w_at IS NULL THEN y.f_at + interval '${CONFIRMATION_DEADLINE_HOURS} hours' END AS due_at,
             CASE WHEN y.f_at IS NOT NULL THEN greatest(y.f_at, y.f_rec) > y.filing_due_at END AS f_late,
             CASE WHEN y.w_at IS NOT NULL THEN greatest(y.w_at, y.w_rec) >
                  coalesce(y.f_at + interval '${CONFIRMATION_DEADLINE_HOURS} hours', y.filing_due_at) END AS w_late
        FROM (
          SELECT r.id, r.kind, r.reference, r.period_date::text AS period_date, r.case_id, r.operation_count, r.generated_by, r.generated_by_role,
                 r.trigger, r.generated_at, r.content_sha256, r.csv_sha256, r.html_sha256,
                 CASE WHEN r.kind = 'DAILY_THRESHOLD' THEN CASE WHEN s.id IS NULL THEN 'GENERATED' ELSE 'SENT' END
                      WHEN w.id IS NOT NULL THEN 'CONFIRMED' WHEN f.id IS NOT NULL THEN 'FILED' ELSE 'GENERATED' END AS state,
                 f.channel AS f_channel, f.occurred_at AS f_at, f.actor_id AS f_by, f.recorded_at AS f_rec,
                 w.occurred_at AS w_at, w.actor_id AS w_by, w.external_reference AS w_ref, w.recorded_at AS w_rec,
                 s.channel AS s_channel, s.occurred_at AS s_at, s.actor_id AS s_by, s.external_reference AS s_ref, s.recorded_at AS s_rec,
                 r.generated_at + make_interval(hours => $3::int) AS filing_due_at,
                 ARRAY(SELECT e.event FROM orchestrator.regulatory_report_events e
                        WHERE e.report_id = r.id AND e.event LIKE '%ALERTED' ORDER BY e.event) AS alerts
            FROM orchestrator.regulatory_reports r
            LEFT JOIN orchestrator.regulatory_report_events f ON f.report_id = r.id AND f.event = 'FILED'
            LEFT JOIN orchestrator.regulatory_report_events w ON w.report_id = r.id AND w.event = 'WRITTEN_CONFIRMATION'
            LEFT JOIN orchestrator.regulatory_report_events s ON s.report_id = r.id AND s.event = 'SENT'
        ) y
    ) x`;

/** The reports' tables (migration 1765600100000): inserts and reads only, both tables being immutable. */
@Injectable()
export class RegulatoryReportsStore {
  constructor(
    readonly db: DataSource,
    private readonly config: OrchestratorConfig,
  ) {}

  private get filingHours(): number {
    return this.config.REGULATORY_FILING_DUE_HOURS;
  }

  /**
   * Stores a report; false when a daily report of that day is already stored (the caller returns that one).
   * A daily report's conflict has no target: its reference is made from its day, so two generations of
   * one day racing meet on the reference's unique index as well as on the day's, and only a
   * conflict the statement names is answered by DO NOTHING (one on another index is a unique
   * violation: a 500 for the officer who lost the race). A suspicion report keeps every conflict an
   * error (its case reported already: the caller answers CASE_ALREADY_REPORTED).
   */
  async insert(db: RawQueryable, r: NewReport): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      db,
      `INSERT INTO orchestrator.regulatory_reports (id, kind, reference, period_date, case_id, content, content_sha256, csv, csv_sha256,
                                                    html, html_sha256, operation_count, generated_by, generated_by_role, trigger)
       VALUES ($1, $2, $3, $4::date, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       ${r.kind === 'DAILY_THRESHOLD' ? 'ON CONFLICT DO NOTHING' : ''}
       RETURNING id`,
      [
        r.id,
        r.kind,
        r.reference,
        r.periodDate,
        r.caseId,
        r.content,
        r.contentSha256,
        r.csv,
        r.csvSha256,
        r.html,
        r.htmlSha256,
        r.operationCount,
        r.generatedBy,
        r.generatedByRole,
        r.trigger,
      ],
    );
    return rows.length === 1;
  }

  async dailyOf(day: string): Promise<string | null> {
    const [row] = await queryRows<{ id: string }>(
      this.db,
      `SELECT id FROM orchestrator.regulatory_reports WHERE kind = 'DAILY_THRESHOLD' AND period_date = $1::date`,
      [day],
    );
    return row?.id ?? null;
  }

  /** The days from `first` to `last` (inclusive) that already have their daily report. */
  async dailyDaysBetween(first: string, last: string): Promise<Set<string>> {
    const rows = await queryRows<{ day: string }>(
      this.db,
      `SELECT period_date::text AS day FROM orchestrator.regulatory_reports
        WHERE kind = 'DAILY_THRESHOLD' AND period_date BETWEEN $1::date AND $2::date`,
      [first, last],
    );
    return new Set(rows.map((r) => r.day));
  }

  async get(id: string, now: Date, dueSoonHours: number, db: RawQueryable = this.db): Promise<ReportRow | null> {
    const [row] = await queryRows<ReportRow>(db, `${REPORTS} WHERE x.id = $4`, [now, dueSoonHours, this.filingHours, id]);
    return row ?? null;
  }

  async list(f: ReportFilter, now: Date, dueSoonHours: number): Promise<ReportRow[]> {
    const params: unknown[] = [now, dueSoonHours, this.filingHours];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const where: string[] = [];
    if (f.kind) where.push(`x.kind = ${param(f.kind)}`);
    if (f.state) where.push(`x.state = ${param(f.state)}`);
    if (f.dateFrom) where.push(`x.period_date::date >= ${param(f.dateFrom)}::date`);
    if (f.dateTo) where.push(`x.period_date::date <= ${param(f.dateTo)}::date`);
    if (f.deadline === 'OVERDUE') where.push(`x.due_at <= $1::timestamptz`);
    if (f.deadline === 'DUE_SOON')
      where.push(`x.due_at > $1::timestamptz AND x.due_at <= $1::timestamptz + make_interval(hours => $2::int)`);
    if (f.before) where.push(`(x.generated_at, x.id) < (${param(f.before[0])}::timestamptz, ${param(f.before[1])}::uuid)`);
    const limit = param(f.limit);
    return queryRows<ReportRow>(
      this.db,
      `${REPORTS} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY x.generated_at DESC, x.id DESC LIMIT ${limit}`,
      params,
    );
  }

  async documents(id: string): Promise<StoredDocuments | null> {
    const [row] = await queryRows<StoredDocuments>(
      this.db,
      `SELECT kind, reference, content, content_sha256, csv, csv_sha256, html, html_sha256 FROM orchestrator.regulatory_reports WHERE id = $1`,
      [id],
    );
    return row ?? null;
  }

  async addEvent(db: RawQueryable, e: NewEvent): Promise<void> {
    await db.query(
      `INSERT INTO orchestrator.regulatory_report_events (report_id, event, actor_id, actor_role, channel, external_reference, note, occurred_at,
                                                         recorded_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, date_trunc('milliseconds', $9::timestamptz))`,
      [e.reportId, e.event, e.actorId, e.actorRole, e.channel, e.externalReference, e.note, e.occurredAt, e.recordedAt],
    );
  }

  /** One writer of a report's events at a time (a transaction-scoped advisory lock: the role has no UPDATE to lock the row with). */
  async lock(db: RawQueryable, id: string): Promise<void> {
    await db.query(`SELECT pg_advisory_xact_lock(hashtextextended('regulatory-report:' || $1::text, 0))`, [id]);
  }

  /** Suspicion reports not filed or not confirmed in writing whose deadline falls before `$1 + due-soon window`, oldest deadline first. */
  async unconfirmed(now: Date, dueSoonHours: number): Promise<ReportRow[]> {
    return queryRows<ReportRow>(
      this.db,
      `${REPORTS} WHERE x.due_at <= $1::timestamptz + make_interval(hours => $2::int) ORDER BY x.due_at, x.id`,
      [now, dueSoonHours, this.filingHours],
    );
  }

  /**
   * Runs `work` holding a session advisory lock on its own connection, or not at all (false) when
   * another replica holds it: the reports' jobs run on one replica at a time.
   */
  withJobLock(key: string, work: () => Promise<void>): Promise<boolean> {
    return withSessionLock(this.db, 'hashtextextended($1, 0)', [key], work);
  }
}
