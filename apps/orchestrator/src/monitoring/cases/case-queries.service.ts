import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { decodeCursor, encodeCursor } from '../../common/cursor';
import { operationFact } from './case-facts.service';
import { CaseStore } from './case.store';
import { ALERT_COLUMNS, type AlertRow, CASE_COLUMNS, type CaseEventRow, type CaseRow } from './case.types';
import type {
  AlertPageView,
  AlertView,
  CaseClockView,
  CaseDetailView,
  CaseEvidenceView,
  CaseOperationPageView,
  CasePageView,
  CaseSummaryView,
} from './case.views';

export interface AlertFilter {
  rule?: string;
  subjectUserId?: string;
  caseId?: string;
  cursor?: string;
  limit: number;
}

/** How many alerts and operations the case view holds; the rest are paged (`alertCount`, `operationsTotal`). */
export const CASE_VIEW_ALERTS = 50;
export const CASE_VIEW_OPERATIONS = 100;

export interface CaseFilter {
  status?: string;
  assigneeId?: string;
  subjectUserId?: string;
  cursor?: string;
  limit: number;
}

const operationKey = (at: Date, transactionId: string): [string, string] => [new Date(at).toISOString(), transactionId];

const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);
const seconds = (from: Date, to: Date | null): number | null =>
  to ? Math.max(0, Math.round((to.getTime() - from.getTime()) / 1000)) : null;

export function clockOf(row: CaseRow, now = new Date()): CaseClockView {
  return {
    openedAt: row.opened_at.toISOString(),
    firstAlertAt: row.first_alert_at.toISOString(),
    lastAlertAt: row.last_alert_at.toISOString(),
    firstAssignedAt: iso(row.first_assigned_at),
    decidedAt: iso(row.decided_at),
    timeToAssignmentSeconds: seconds(row.opened_at, row.first_assigned_at),
    timeToDecisionSeconds: seconds(row.opened_at, row.decided_at),
    ageSeconds: seconds(row.opened_at, row.decided_at ?? now) ?? 0,
  };
}

export function summaryOf(row: CaseRow): CaseSummaryView {
  return {
    id: row.id,
    reference: row.reference,
    status: row.status,
    subjectUserId: row.subject_user_id,
    subjectKind: row.subject_kind,
    assigneeId: row.assignee_id,
    pendingRequestId: row.pending_request_id,
    decision: row.decision,
    decisionNote: row.decision_note,
    decidedBy: row.decided_by,
    decisionRequestId: row.decision_request_id,
    decisionReportId: row.decision_report_id,
    alertCount: Number(row.alert_count ?? 0),
    clock: clockOf(row),
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function evidenceOf(event: CaseEventRow): CaseEvidenceView {
  const d = event.details;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    kind: String(d.kind),
    reference: text(d.reference),
    transactionId: text(d.transactionId),
    userId: text(d.userId),
    link: text(d.link),
    snapshot: isObject(d.snapshot) ? d.snapshot : null,
    snapshotTakenAt: text(d.snapshotTakenAt),
    snapshotCut: isObject(d.snapshotCut) ? (d.snapshotCut as Record<string, number>) : null,
    note: text(d.note),
    addedBy: event.actor_id ?? '',
    addedAt: event.at.toISOString(),
  };
}

/** A 360 snapshot (up to 64 KiB) is shown once, in `evidence`, not again in the history entry that added it. */
function historyDetails(event: CaseEventRow): Record<string, unknown> {
  if (event.kind !== 'EVIDENCE' || !('snapshot' in event.details)) return event.details;
  const { snapshot: _snapshot, ...rest } = event.details;
  return rest;
}

/** Officers' reads of alerts and cases: keyset pages, newest first, and one case with everything it holds. */
@Injectable()
export class CaseQueries {
  constructor(private readonly store: CaseStore) {}

  async alerts(filter: AlertFilter): Promise<AlertPageView> {
    const after = filter.cursor ? decodeCursor(filter.cursor) : null;
    const rows = await queryRows<AlertRow>(
      this.store.db,
      `SELECT ${ALERT_COLUMNS}, c.reference AS case_reference
         FROM orchestrator.monitoring_alerts a JOIN orchestrator.monitoring_cases c ON c.id = a.case_id
        WHERE ($1::text IS NULL OR a.rule = $1) AND ($2::uuid IS NULL OR a.subject_user_id = $2) AND ($3::uuid IS NULL OR a.case_id = $3)
          AND ($4::timestamptz IS NULL OR (a.raised_at, a.id) < ($4::timestamptz, $5::uuid))
        ORDER BY a.raised_at DESC, a.id DESC LIMIT $6`,
      [filter.rule ?? null, filter.subjectUserId ?? null, filter.caseId ?? null, after?.[0] ?? null, after?.[1] ?? null, filter.limit + 1],
    );
    const page = rows.slice(0, filter.limit);
    const items = await this.alertViews(page);
    const last = page[page.length - 1];
    return { items, nextCursor: rows.length > filter.limit && last ? encodeCursor([last.raised_at.toISOString(), last.id]) : null };
  }

  async alert(id: string): Promise<AlertView> {
    const rows = await queryRows<AlertRow>(
      this.store.db,
      `SELECT ${ALERT_COLUMNS}, c.reference AS case_reference
         FROM orchestrator.monitoring_alerts a JOIN orchestrator.monitoring_cases c ON c.id = a.case_id WHERE a.id = $1`,
      [id],
    );
    if (rows.length === 0) throw new AppException('ALERT_NOT_FOUND', `No monitoring alert ${id}`);
    return (await this.alertViews(rows))[0];
  }

  async cases(filter: CaseFilter): Promise<CasePageView> {
    const after = filter.cursor ? decodeCursor(filter.cursor) : null;
    const rows = await queryRows<CaseRow>(
      this.store.db,
      `SELECT ${CASE_COLUMNS}, (SELECT count(*) FROM orchestrator.monitoring_alerts a WHERE a.case_id = c.id) AS alert_count
         FROM orchestrator.monitoring_cases c
        WHERE ($1::text IS NULL OR c.status = $1) AND ($2::uuid IS NULL OR c.assignee_id = $2) AND ($3::uuid IS NULL OR c.subject_user_id = $3)
          AND ($4::timestamptz IS NULL OR (c.opened_at, c.id) < ($4::timestamptz, $5::uuid))
        ORDER BY c.opened_at DESC, c.id DESC LIMIT $6`,
      [
        filter.status ?? null,
        filter.assigneeId ?? null,
        filter.subjectUserId ?? null,
        after?.[0] ?? null,
        after?.[1] ?? null,
        filter.limit + 1,
      ],
    );
    const page = rows.slice(0, filter.limit);
    const last = page[page.length - 1];
    return {
      items: page.map(summaryOf),
      nextCursor: rows.length > filter.limit && last ? encodeCursor([last.opened_at.toISOString(), last.id]) : null,
    };
  }

  /**
   * The case as an officer works it, read once: its first CASE_VIEW_ALERTS alerts and first
   * CASE_VIEW_OPERATIONS operations (oldest first) with their totals, every piece of evidence, the
   * whole history, and `version`, the number of history events, which a decision must name.
   */
  async detail(id: string): Promise<CaseDetailView> {
    const row = await this.store.get(id);
    const [alerts, operations, events, person] = await Promise.all([
      this.store.alertPage(id, CASE_VIEW_ALERTS),
      this.store.operationPage(id, CASE_VIEW_OPERATIONS),
      this.store.events(id),
      this.store.identity(row.subject_user_id),
    ]);
    const lastShown = operations.rows[operations.rows.length - 1];
    return {
      ...summaryOf({ ...row, alert_count: alerts.total }),
      version: events.length,
      subject: {
        kind: row.subject_kind,
        userId: row.subject_user_id,
        ...person,
        person360: `/api/backoffice/people/${row.subject_user_id}`,
      },
      alerts: await this.alertViews(alerts.rows.map((a) => ({ ...a, case_reference: row.reference }))),
      evidence: events.filter((e) => e.kind === 'EVIDENCE').map(evidenceOf),
      operations: operations.rows.map(operationFact),
      operationsTotal: operations.total,
      operationsNextCursor:
        operations.total > operations.rows.length && lastShown
          ? encodeCursor(operationKey(lastShown.occurred_at, lastShown.transaction_id))
          : null,
      history: events.map((e) => ({ kind: e.kind, actorId: e.actor_id, details: historyDetails(e), at: e.at.toISOString() })),
    };
  }

  /** The case's operations after the view's first ones (or any page of them), oldest first. */
  async operations(id: string, cursor: string | undefined, limit: number): Promise<CaseOperationPageView> {
    await this.store.get(id);
    const after = cursor ? decodeCursor(cursor) : null;
    const page = await this.store.operationPage(id, limit + 1, after);
    const rows = page.rows.slice(0, limit);
    const last = rows[rows.length - 1];
    return {
      items: rows.map(operationFact),
      total: page.total,
      nextCursor: page.rows.length > limit && last ? encodeCursor(operationKey(last.occurred_at, last.transaction_id)) : null,
    };
  }

  private async alertViews(rows: AlertRow[]): Promise<AlertView[]> {
    const operations = await this.store.operations([...new Set(rows.flatMap((r) => r.transaction_ids))]);
    const referenceOf = new Map(operations.map((op) => [op.transaction_id, op.reference]));
    return rows.map((r) => ({
      id: r.id,
      rule: r.rule,
      subjectUserId: r.subject_user_id,
      subjectKind: r.subject_kind,
      currency: r.currency,
      scope: r.scope,
      windowStart: r.window_start.toISOString(),
      windowEnd: r.window_end.toISOString(),
      configVersion: r.config_version,
      reason: r.reason,
      figures: r.figures,
      transactionReferences: r.transaction_ids.map((id) => referenceOf.get(id) ?? id),
      operationsTotal: r.operations_total,
      truncated: r.truncated,
      caseId: r.case_id,
      caseReference: r.case_reference ?? '',
      raisedAt: r.raised_at.toISOString(),
    }));
  }
}
