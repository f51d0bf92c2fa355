import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { type RawQueryable, queryRows } from '@mm/platform';
import type { CaseFacts, CaseFactsSource, CaseOperationFact } from '../case-facts';
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

  async factsOf(caseId: string): Promise<CaseFacts> {
    const row = await this.store.get(caseId);
    const [alerts, events, person] = await Promise.all([
      this.store.alertsOfCase(caseId),
      this.store.events(caseId),
      this.person(row.subject_user_id),
    ]);
    const evidence = events
      .filter((e) => e.kind === 'EVIDENCE' && e.details.kind === 'TRANSACTION')
      .map((e) => String(e.details.transactionId));
    const operations = await this.store.operations([...new Set([...alerts.flatMap((a) => a.transaction_ids), ...evidence])]);
    const referenceOf = new Map(operations.map((op) => [op.transaction_id, op.reference]));
    return {
      caseId: row.id,
      reference: row.reference,
      status: row.status,
      assigneeId: row.assignee_id,
      openedAt: row.opened_at.toISOString(),
      subject: { kind: row.subject_kind, userId: row.subject_user_id, ...person },
      alerts: alerts.map((a) => ({
        alertId: a.id,
        rule: a.rule,
        configVersion: a.config_version,
        reason: a.reason,
        raisedAt: a.raised_at.toISOString(),
        transactionReferences: a.transaction_ids.map((id) => referenceOf.get(id) ?? id),
      })),
      operations: operations.map(operationFact),
      notes: events
        .filter((e) => e.kind === 'NOTE')
        .map((e) => ({ authorId: e.actor_id ?? 'system', text: String(e.details.text), at: e.at.toISOString() })),
    };
  }

  /** Closes the case SUSPICION_REPORT in the caller's transaction: the report and the closing commit together. */
  async closeWithSuspicionReport(tx: RawQueryable, caseId: string, reportId: string, actorId: string): Promise<void> {
    const row = await this.store.get(caseId, tx, true);
    if (row.status === 'CLOSED') throw new AppException('CASE_CLOSED', `Case ${row.reference} is already closed (${row.decision})`);
    if (row.status === 'DECISION_PENDING') {
      throw new AppException('CASE_DECISION_PENDING', `Case ${row.reference} waits for the FREEZE request ${row.pending_request_id}`);
    }
    await tx.query(
      `UPDATE orchestrator.monitoring_cases
          SET status = 'CLOSED', decision = 'SUSPICION_REPORT', decision_report_id = $2, decided_by = $3, decided_at = now()
        WHERE id = $1`,
      [caseId, reportId, actorId],
    );
    await this.store.event(tx, caseId, 'DECIDED', actorId, { decision: 'SUSPICION_REPORT', reportId });
  }

  /** Name, phone and ledger accounts of the person, as the orchestrator's identities hold them. */
  private async person(userId: string): Promise<{ name: string | null; phone: string | null; accountIds: string[] }> {
    const [row] = await queryRows<{ name: string | null; phone: string | null; account_ids: string[] | null }>(
      this.store.db,
      `SELECT p.first_name || ' ' || p.last_name AS name, c.phone,
              (SELECT array_agg(a.account_id::text ORDER BY a.currency, a.purpose) FROM orchestrator.ledger_accounts a WHERE a.customer_id = c.id) AS account_ids
         FROM orchestrator.customers c LEFT JOIN orchestrator.profiles p ON p.customer_id = c.id
        WHERE c.user_id = $1`,
      [userId],
    );
    return { name: row?.name ?? null, phone: row?.phone ?? null, accountIds: row?.account_ids ?? [] };
  }
}
