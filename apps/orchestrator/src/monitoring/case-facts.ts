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
  /** the operations the alert names: all of them, or the first ones and the trigger when `truncated` */
  transactionReferences: string[];
  /** how many operations were behind the hit (more than `transactionReferences` when `truncated`) */
  operationsTotal: number;
  /** the alert was cut at its first operations (docs/monitoring.md): a report must not call the list complete */
  truncated: boolean;
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
  /** the case's version (how many history events it has), as the case view shows it */
  version: number;
  subject: CaseSubject;
  alerts: CaseAlertFact[];
  /** every operation attached to the case (by its alerts or as evidence), oldest first */
  operations: CaseOperationFact[];
  notes: CaseNoteFact[];
}

/** Who closes which case by which report, and the case version they decided on. */
export interface SuspicionClosing {
  caseId: string;
  /** the `version` of the case view the officer read: a case that moved since is refused (409 CASE_CHANGED) */
  expectedVersion: number;
  reportId: string;
  actorId: string;
}

export interface CaseFactsSource {
  /** The case's facts as they are now; throws AppException CASE_NOT_FOUND when there is no such case. */
  factsOf(caseId: string): Promise<CaseFacts>;
  /**
   * Closes the case with the decision SUSPICION_REPORT naming the report, inside the caller's
   * transaction `tx`, and hands `report` the case's facts read in that same transaction with the
   * case row locked: the report is built and stored from exactly what is closed, and nothing can
   * join the case in between. `report` stores the report row in `tx`; if it throws, nothing is closed.
   *
   * Refused with an AppException, before `report` runs: CASE_NOT_FOUND; CASE_CLOSED (or
   * CASE_ALREADY_REPORTED when a report closed it); CASE_DECISION_PENDING; CASE_NOT_ASSIGNED_TO_YOU
   * (only the case's assignee decides it); CASE_CHANGED (the case is no longer at `expectedVersion`).
   */
  closeWithSuspicionReport(tx: RawQueryable, closing: SuspicionClosing, report: (facts: CaseFacts) => Promise<void>): Promise<void>;
}
