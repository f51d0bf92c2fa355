import type { components } from '../../api/schema';

export type Report = components['schemas']['RegulatoryReportView'];
export type ReportDetail = components['schemas']['RegulatoryReportDetailView'];

export const KIND_LABELS: Record<string, string> = {
  DAILY_THRESHOLD: 'Daily threshold report',
  SUSPICION: 'Suspicion report',
};

export const STATE_LABELS: Record<string, string> = {
  GENERATED: 'Generated',
  FILED: 'Filed, written confirmation due',
  CONFIRMED: 'Confirmed in writing',
  SENT: 'Sent',
};

export const STATE_COLORS: Record<string, string> = { GENERATED: 'blue', FILED: 'yellow', CONFIRMED: 'green', SENT: 'green' };

export const kindLabel = (kind: string) => KIND_LABELS[kind] ?? kind;
export const stateLabel = (state: string) => STATE_LABELS[state] ?? state;

/*
 * The stored content of a report (`content`, free-form in the API document): the fields this console
 * shows, as docs/regulatory-reports.md "Content, CSV and printable document" describes the formats mm.regulatory.daily-threshold.v1
 * and mm.regulatory.suspicion.v1. A field missing from an older format shows as blank.
 */
export interface ContentParty {
  accountId: string;
  role: string;
  name: string;
  phone: string | null;
}

export interface ContentOperation {
  reference: string;
  type: string;
  category?: string;
  completedAt?: string;
  occurredAt?: string;
  amount: number;
  currency: string;
  source: ContentParty;
  destination: ContentParty;
  alertRules?: string[];
}

export interface ContentTotal {
  currency: string;
  count: number;
  amount: string;
}

export interface ReportContent {
  format: string;
  reportDate?: string;
  timeZone?: string;
  thresholds?: Array<{ currency: string; minAmount: number }>;
  categories?: Array<{ category: string; operationType: string; totals: ContentTotal[] }>;
  case?: { caseId: string; reference: string; openedAt: string };
  subject?: { kind: string; userId: string; name: string | null; phone: string | null };
  grounds?: string[];
  narrative?: string;
  alerts?: Array<{ alertId: string; rule: string; reason: string; raisedAt: string }>;
  operations?: ContentOperation[];
  totals?: ContentTotal[];
}
