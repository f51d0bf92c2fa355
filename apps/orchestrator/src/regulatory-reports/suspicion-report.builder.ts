import type { CaseFacts } from '../monitoring/case-facts';
import type { ReportParty, SuspicionReportContent } from './report-content';
import { totalsOf } from './report-content';

export interface SubjectIdentity {
  role: string | null;
  kycTier: string | null;
  agentCode: string | null;
  businessName: string | null;
  name: string | null;
  phone: string | null;
}

export interface SuspicionInput {
  reference: string;
  generatedAt: string;
  generatedBy: { userId: string; role: string };
  grounds: string[];
  narrative: string;
}

/** `STR-20261127-1A2B3C4D`: the day it was made (UTC+01:00) and the start of the report's id. */
export function suspicionReference(day: string, reportId: string): string {
  return `STR-${day.replaceAll('-', '')}-${reportId.replaceAll('-', '').slice(0, 8).toUpperCase()}`;
}

/**
 * A suspicion report from a case's facts: who (the subject, completed with what the orchestrator
 * holds about them), what (every operation of the case with both parties), how much (totals per
 * currency) and why (each alert's rule and reason, the officer's grounds and narrative).
 */
export function buildSuspicionContent(
  facts: CaseFacts,
  input: SuspicionInput,
  subject: SubjectIdentity | null,
  party: (accountId: string) => ReportParty,
): SuspicionReportContent {
  const rulesOf = (reference: string) =>
    [...new Set(facts.alerts.filter((a) => a.transactionReferences.includes(reference)).map((a) => a.rule))].sort();
  return {
    format: 'mm.regulatory.suspicion.v1',
    reference: input.reference,
    generatedAt: input.generatedAt,
    generatedBy: { userId: input.generatedBy.userId, role: input.generatedBy.role },
    case: { caseId: facts.caseId, reference: facts.reference, openedAt: facts.openedAt, assigneeId: facts.assigneeId },
    subject: {
      kind: facts.subject.kind,
      userId: facts.subject.userId,
      name: facts.subject.name ?? subject?.name ?? null,
      phone: facts.subject.phone ?? subject?.phone ?? null,
      role: subject?.role ?? null,
      kycTier: subject?.kycTier ?? null,
      agentCode: subject?.agentCode ?? null,
      businessName: subject?.businessName ?? null,
      accountIds: [...facts.subject.accountIds],
    },
    grounds: [...input.grounds],
    narrative: input.narrative,
    alerts: facts.alerts.map((a) => ({
      alertId: a.alertId,
      rule: a.rule,
      configVersion: a.configVersion,
      reason: a.reason,
      raisedAt: a.raisedAt,
      transactionReferences: [...a.transactionReferences],
      operationsTotal: a.operationsTotal,
      truncated: a.truncated,
    })),
    operations: facts.operations.map((op) => ({
      reference: op.reference,
      transactionId: op.transactionId,
      type: op.type,
      occurredAt: op.occurredAt,
      amount: op.amount,
      currency: op.currency,
      source: party(op.sourceAccountId),
      destination: party(op.destinationAccountId),
      alertRules: rulesOf(op.reference),
    })),
    totals: totalsOf(facts.operations),
  };
}
