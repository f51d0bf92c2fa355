import type { RawQueryable } from '@mm/platform';

/**
 * What a suspicion report needs to know about a compliance case, and the one way a report closes
 * it. The monitoring module owns cases and provides this under `CASE_FACTS`; the regulatory
 * reports module reads it, so reports depend on monitoring and never the other way round.
 */
export const CASE_FACTS = Symbol('CASE_FACTS');

export type CaseSubjectKind = 'CUSTOMER' | 'AGENT' | 'MERCHANT';

export interface CaseSubject {
  kind: CaseSubjectKind;
  /** the person's user id (auth / orchestrator identities) */
  userId: string;
  /** full name and phone as the platform knows them, when it does */
  name: string | null;
  phone: string | null;
  /** the person's ledger accounts the case is about */
  accountIds: string[];
}

export interface CaseAlertFact {
  alertId: string;
  /** the rule's code, e.g. STRUCTURING, PASS_THROUGH */
  rule: string;
  /** the version of the monitoring configuration the rule ran under */
  configVersion: number;
  /** why the rule fired, in plain words with the figures it saw */
  reason: string;
  raisedAt: string;
  transactionReferences: string[];
}

export interface CaseOperationFact {
  reference: string;
  transactionId: string;
  type: 'TRANSFER' | 'CASH_IN' | 'CASH_OUT';
  /** integer, smallest unit of the currency */
  amount: number;
  currency: string;
  occurredAt: string;
  sourceAccountId: string;
  destinationAccountId: string;
}

export interface CaseNoteFact {
  authorId: string;
  text: string;
  at: string;
}

export interface CaseFacts {
  caseId: string;
  /** readable case reference shown to officers */
  reference: string;
  status: string;
  assigneeId: string | null;
  openedAt: string;
  subject: CaseSubject;
  alerts: CaseAlertFact[];
  /** every operation attached to the case (by its alerts or as evidence), oldest first */
  operations: CaseOperationFact[];
  notes: CaseNoteFact[];
}

export interface CaseFactsSource {
  /** The case's facts; throws AppException CASE_NOT_FOUND when there is no such case. */
  factsOf(caseId: string): Promise<CaseFacts>;
  /**
   * Closes the case with the decision SUSPICION_REPORT naming the report, inside the caller's
   * transaction `tx` (the report row and the case's closing commit together). Refuses a case that
   * is already closed with an AppException (409).
   */
  closeWithSuspicionReport(tx: RawQueryable, caseId: string, reportId: string, actorId: string): Promise<void>;
}
