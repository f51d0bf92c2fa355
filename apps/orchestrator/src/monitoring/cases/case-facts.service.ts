import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import type { RawQueryable } from '@mm/platform';
import type { CaseFacts, CaseFactsSource, CaseOperationFact, SuspicionClosing } from '../case-facts';
import { assertDecidable, assertVersion } from './case-actions.service';
import { CaseStore } from './case.store';
import type { OperationRow } from './case.types';

/** The operation as the facts of a case name it. */
export function operationFact(row: OperationRow): CaseOperationFact {
  return {
    reference: row.reference,
    transactionId: row.transaction_id,
    type: row.intent_type,
    amount: Number(row.amount),
    currency: row.currency,
    occurredAt: new Date(row.occurred_at).toISOString(),
    sourceAccountId: row.source_account_id,
    destinationAccountId: row.destination_account_id,
  };
}

/**
 * The case facts contract (`case-facts.ts`) served to the regulatory reports module: what a
 * suspicion report states about a case, and the one way a report closes it.
 */
@Injectable()
export class CaseFactsService implements CaseFactsSource {
  constructor(private readonly store: CaseStore) {}

  /** Read one query after another: inside a transaction they share one connection. */
  async factsOf(caseId: string, db: RawQueryable = this.store.db): Promise<CaseFacts> {
    const row = await this.store.get(caseId, db);
    const alerts = await this.store.alertsOfCase(caseId, db);
    const events = await this.store.events(caseId, db);
    const person = await this.store.identity(row.subject_user_id, db);
    const evidence = events
      .filter((e) => e.kind === 'EVIDENCE' && e.details.kind === 'TRANSACTION')
      .map((e) => String(e.details.transactionId));
    const operations = await this.store.operations([...new Set([...alerts.flatMap((a) => a.transaction_ids), ...evidence])], db);
    const referenceOf = new Map(operations.map((op) => [op.transaction_id, op.reference]));
    return {
      caseId: row.id,
      reference: row.reference,
      status: row.status,
      assigneeId: row.assignee_id,
      openedAt: row.opened_at.toISOString(),
      version: events.length,
      subject: { kind: row.subject_kind, userId: row.subject_user_id, ...person },
      alerts: alerts.map((a) => ({
        alertId: a.id,
        rule: a.rule,
        configVersion: a.config_version,
        reason: a.reason,
        raisedAt: a.raised_at.toISOString(),
        transactionReferences: a.transaction_ids.map((id) => referenceOf.get(id) ?? id),
        operationsTotal: a.operations_total,
        truncated: a.truncated,
      })),
      operations: operations.map(operationFact),
      notes: events
        .filter((e) => e.kind === 'NOTE')
        .map((e) => ({ authorId: e.actor_id ?? 'system', text: String(e.details.text), at: e.at.toISOString() })),
    };
  }

  /**
   * Locks the case row, checks that the actor may decide it at the version they saw, gives its
   * facts (read under the lock) to `report`, then closes it SUSPICION_REPORT: all in `tx`. An alert
   * raised meanwhile waits for the lock and then joins a closed case's successor, never this one.
   */
  async closeWithSuspicionReport(tx: RawQueryable, closing: SuspicionClosing, report: (facts: CaseFacts) => Promise<void>): Promise<void> {
    const { caseId, expectedVersion, reportId, actorId } = closing;
    const row = await this.store.get(caseId, tx, true);
    if (row.status === 'CLOSED' && row.decision === 'SUSPICION_REPORT') {
      throw new AppException('CASE_ALREADY_REPORTED', `Case ${row.reference} was closed by the suspicion report ${row.decision_report_id}`);
    }
    assertDecidable(row, actorId);
    assertVersion(row, await this.store.version(caseId, tx), expectedVersion);
    await report(await this.factsOf(caseId, tx));
    await tx.query(
      `UPDATE orchestrator.monitoring_cases
          SET status = 'CLOSED', decision = 'SUSPICION_REPORT', decision_report_id = $2, decided_by = $3, decided_at = now()
        WHERE id = $1`,
      [caseId, reportId, actorId],
    );
    await this.store.event(tx, caseId, 'DECIDED', actorId, { decision: 'SUSPICION_REPORT', reportId });
  }
}
