import type { components } from '../../api/schema';

export type MonitoringAlert = components['schemas']['AlertView'];
export type CaseSummary = components['schemas']['CaseSummaryView'];
export type CaseDetail = components['schemas']['CaseDetailView'];
export type RuleCode = MonitoringAlert['rule'];
export type CaseStatus = CaseSummary['status'];

/** Every monitoring rule in words (docs/monitoring.md "The rules"): a rule added to the API fails the type-check until named here. */
export const RULE_LABELS: Record<RuleCode, string> = {
  STRUCTURING: 'Structuring below the reporting threshold',
  PASS_THROUGH: 'Money passing straight through',
  DORMANT_REACTIVATION: 'Dormant account waking up',
  AGENT_CYCLING: 'Agent cycling cash with one customer',
  FAN_IN: 'Many payers to one recipient',
  AGENT_VELOCITY: 'Agent velocity',
};

export const CASE_STATUS_LABELS: Record<CaseStatus, string> = {
  OPEN: 'Open, nobody assigned',
  IN_REVIEW: 'In review',
  DECISION_PENDING: 'Decision waiting for approval',
  CLOSED: 'Closed',
};

export const CASE_STATUS_COLORS: Record<CaseStatus, string> = {
  OPEN: 'red',
  IN_REVIEW: 'orange',
  DECISION_PENDING: 'yellow',
  CLOSED: 'gray',
};

export const DECISION_LABELS: Record<NonNullable<CaseSummary['decision']>, string> = {
  NO_ACTION: 'No action',
  FREEZE: 'Frozen',
  SUSPICION_REPORT: 'Suspicion report',
};

export const EVENT_LABELS: Record<CaseDetail['history'][number]['kind'], string> = {
  OPENED: 'Case opened',
  ALERT_ADDED: 'Alert added',
  ASSIGNED: 'Assigned',
  NOTE: 'Note',
  EVIDENCE: 'Evidence attached',
  DECISION_REQUESTED: 'Decision submitted for approval',
  DECISION_WITHDRAWN: 'Decision request withdrawn',
  DECIDED: 'Decided',
};

export const ruleLabel = (rule: string) => (RULE_LABELS as Record<string, string | undefined>)[rule] ?? rule;

/** A duration in seconds, in the largest units that matter: "2 d 3 h", "4 h 12 min", "35 s". */
export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  const s = Math.max(0, Math.round(seconds));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3_600);
  const m = Math.floor((s % 3_600) / 60);
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min`;
  return `${s} s`;
}

/** A person id as a link label: its start (the whole id is the link's address). */
export const shortId = (id: string | null | undefined) => (id ? `${id.slice(0, 8)}…` : '—');
