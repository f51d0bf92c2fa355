import type { CaseSubjectKind } from '../case-facts';

export const CASE_STATUSES = ['OPEN', 'IN_REVIEW', 'DECISION_PENDING', 'CLOSED'] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];

export const CASE_DECISIONS = ['NO_ACTION', 'FREEZE', 'SUSPICION_REPORT'] as const;
export type CaseDecision = (typeof CASE_DECISIONS)[number];

export const CASE_EVENT_KINDS = [
  'OPENED',
  'ALERT_ADDED',
  'ASSIGNED',
  'NOTE',
  'EVIDENCE',
  'DECISION_REQUESTED',
  'DECISION_WITHDRAWN',
  'DECIDED',
] as const;
export type CaseEventKind = (typeof CASE_EVENT_KINDS)[number];

/** A case row as stored (snake case from SQL). */
export interface CaseRow {
  id: string;
  reference: string;
  subject_user_id: string;
  subject_kind: CaseSubjectKind;
  status: CaseStatus;
  assignee_id: string | null;
  assigned_at: Date | null;
  first_assigned_at: Date | null;
  opened_at: Date;
  first_alert_at: Date;
  last_alert_at: Date;
  pending_request_id: string | null;
  decision: CaseDecision | null;
  decision_note: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  decision_request_id: string | null;
  decision_report_id: string | null;
  alert_count?: number;
}

export interface AlertRow {
  id: string;
  rule: string;
  subject_user_id: string;
  subject_kind: CaseSubjectKind;
  currency: string;
  scope: string;
  window_start: Date;
  window_end: Date;
  config_version: number;
  reason: string;
  figures: Record<string, number | string>;
  transaction_ids: string[];
  operations_total: number;
  truncated: boolean;
  trigger_event_id: string;
  case_id: string;
  case_reference?: string;
  raised_at: Date;
}

export interface CaseEventRow {
  id: string;
  case_id: string;
  kind: CaseEventKind;
  actor_id: string | null;
  details: Record<string, unknown>;
  at: Date;
}

export interface OperationRow {
  event_id: string;
  transaction_id: string;
  reference: string;
  intent_type: 'TRANSFER' | 'CASH_IN' | 'CASH_OUT';
  amount: string;
  fee: string;
  currency: string;
  source_account_id: string;
  destination_account_id: string;
  source_user_id: string | null;
  source_kind: CaseSubjectKind | null;
  destination_user_id: string | null;
  destination_kind: CaseSubjectKind | null;
  occurred_at: Date;
}

export const CASE_COLUMNS = `c.id, c.reference, c.subject_user_id, c.subject_kind, c.status, c.assignee_id, c.assigned_at, c.first_assigned_at,
  c.opened_at, c.first_alert_at, c.last_alert_at, c.pending_request_id, c.decision, c.decision_note, c.decided_by, c.decided_at,
  c.decision_request_id, c.decision_report_id`;

export const ALERT_COLUMNS = `a.id, a.rule, a.subject_user_id, a.subject_kind, a.currency, a.scope, a.window_start, a.window_end,
  a.config_version, a.reason, a.figures, a.transaction_ids, a.operations_total, a.truncated, a.trigger_event_id, a.case_id, a.raised_at`;
