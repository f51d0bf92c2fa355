import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import type { RawQueryable } from '@mm/platform';
import type { AuthUser } from '../../access/permissions';
import { ApprovalsService } from '../../approvals/approvals.service';
import { Person360Service } from '../../backoffice/people/person-360.service';
import { CaseQueries } from './case-queries.service';
import { CaseStore } from './case.store';
import type { CaseRow } from './case.types';
import type { CaseDecisionView, CaseDetailView } from './case.views';
import { OfficersClient } from './officers.client';
import { PersonReadAudit } from './person-read.audit';
import { boundSnapshot } from './person-snapshot';

/** A case that can still change: not closed (and, for a decision, not waiting for one). */
export function assertOpen(row: CaseRow): void {
  if (row.status === 'CLOSED') throw new AppException('CASE_CLOSED', `Case ${row.reference} is closed (${row.decision})`);
}

export function assertDecidable(row: CaseRow, userId: string): void {
  assertOpen(row);
  if (row.status === 'DECISION_PENDING') {
    throw new AppException('CASE_DECISION_PENDING', `Case ${row.reference} waits for the FREEZE request ${row.pending_request_id}`);
  }
  if (row.assignee_id !== userId) throw new AppException('CASE_NOT_ASSIGNED_TO_YOU', `Case ${row.reference} is not assigned to you`);
}

/**
 * The case is still at the version the officer read (its number of history events, locked with the
 * row): a decision on a case that moved since, say a new alert joined it, would close what nobody saw.
 */
export function assertVersion(row: CaseRow, version: number, expected: number): void {
  if (version !== expected) {
    throw new AppException('CASE_CHANGED', `Case ${row.reference} is at version ${version}, not ${expected}: read it again, then decide`);
  }
}

export interface EvidenceInput {
  kind: 'TRANSACTION' | 'PERSON_360';
  reference?: string;
  userId?: string;
  note?: string;
}

/**
 * What a compliance officer does to a case. Each change locks the case row and writes its history
 * event in the same transaction, so the history is the case's whole story in order. A FREEZE is a
 * CASE_FREEZE request of the maker-checker engine (`case-freeze.handler.ts`); a suspicion report
 * closes a case from the regulatory reports module (`CASE_FACTS`).
 */
@Injectable()
export class CaseActions {
  constructor(
    private readonly store: CaseStore,
    private readonly queries: CaseQueries,
    private readonly officers: OfficersClient,
    private readonly approvals: ApprovalsService,
    private readonly people: Person360Service,
    private readonly audit: PersonReadAudit,
  ) {}

  /** To the caller when `assigneeId` is absent; to another officer otherwise. Assigning to the current assignee changes nothing. */
  async assign(caseId: string, assigneeId: string | undefined, user: AuthUser): Promise<CaseDetailView> {
    const target = (assigneeId ?? user.userId).toLowerCase();
    await this.store.get(caseId);
    if (target !== user.userId) await this.officers.assertOfficer(target);
    return this.change(caseId, async (tx, row) => {
      assertOpen(row);
      if (row.assignee_id === target) return;
      await tx.query(
        `UPDATE orchestrator.monitoring_cases
            SET assignee_id = $2, assigned_at = now(), first_assigned_at = COALESCE(first_assigned_at, now()),
                status = CASE WHEN status = 'OPEN' THEN 'IN_REVIEW' ELSE status END
          WHERE id = $1`,
        [caseId, target],
      );
      await this.store.event(tx, caseId, 'ASSIGNED', user.userId, { assigneeId: target, previousAssigneeId: row.assignee_id });
    });
  }

  note(caseId: string, text: string, user: AuthUser): Promise<CaseDetailView> {
    return this.change(caseId, async (tx, row) => {
      assertOpen(row);
      await this.store.event(tx, caseId, 'NOTE', user.userId, { text });
    });
  }

  async evidence(caseId: string, input: EvidenceInput, user: AuthUser): Promise<CaseDetailView> {
    // checked before reading anything: a 360 view is several calls to other services
    const current = await this.store.get(caseId);
    assertOpen(current);
    const details =
      input.kind === 'TRANSACTION'
        ? await this.transactionEvidence(input)
        : await this.personEvidence(caseId, input.userId ?? current.subject_user_id, user);
    return this.change(caseId, async (tx, row) => {
      assertOpen(row);
      await this.store.event(tx, caseId, 'EVIDENCE', user.userId, { ...details, note: input.note ?? null });
    });
  }

  /**
   * NO_ACTION closes the case now; FREEZE submits CASE_FREEZE (the case waits, DECISION_PENDING, for
   * a second officer). Both only on the case at `expectedVersion`, the version the officer read.
   */
  async decide(
    caseId: string,
    decision: 'NO_ACTION' | 'FREEZE',
    note: string,
    expectedVersion: number,
    user: AuthUser,
  ): Promise<{ view: CaseDecisionView; pending: boolean }> {
    if (decision === 'FREEZE') {
      const request = await this.approvals.submit(user, {
        action: 'CASE_FREEZE',
        payload: { caseId, reason: note, expectedVersion },
        reason: note,
      });
      return { view: { case: await this.queries.detail(caseId), approvalRequest: request }, pending: request.status === 'PENDING' };
    }
    const detail = await this.change(caseId, async (tx, row) => {
      assertDecidable(row, user.userId);
      assertVersion(row, await this.store.version(caseId, tx), expectedVersion);
      await tx.query(
        `UPDATE orchestrator.monitoring_cases
            SET status = 'CLOSED', decision = 'NO_ACTION', decision_note = $2, decided_by = $3, decided_at = now() WHERE id = $1`,
        [caseId, note, user.userId],
      );
      await this.store.event(tx, caseId, 'DECIDED', user.userId, { decision: 'NO_ACTION', note });
    });
    return { view: { case: detail, approvalRequest: null }, pending: false };
  }

  private async change(caseId: string, work: (tx: RawQueryable, row: CaseRow) => Promise<void>): Promise<CaseDetailView> {
    await this.store.transaction(async (tx) => work(tx, await this.store.get(caseId, tx, true)));
    return this.queries.detail(caseId);
  }

  private async transactionEvidence(input: EvidenceInput): Promise<Record<string, unknown>> {
    const op = await this.store.operationByReference(input.reference!);
    if (!op) throw new AppException('MONITORED_OPERATION_NOT_FOUND', `No monitored operation has the reference ${input.reference}`);
    return { kind: 'TRANSACTION', reference: op.reference, transactionId: op.transaction_id };
  }

  /**
   * The person's 360 view as the officer sees it now (`/api/backoffice/people/{userId}`, read with
   * the officer's own rights), kept whole as the snapshot up to MAX_SNAPSHOT_BYTES, with when it
   * was read and which lists had to be shortened; the event's actor says who. The link still leads
   * to the live view, which changes as the person does. The read is recorded in the staff audit
   * trail naming the person (`person-read.audit.ts`).
   */
  private async personEvidence(caseId: string, personId: string, user: AuthUser): Promise<Record<string, unknown>> {
    const userId = personId.toLowerCase();
    const takenAt = new Date().toISOString();
    const view = await this.people.view(userId, user);
    await this.audit.record(caseId, userId, user);
    const { snapshot, cut, bytes } = boundSnapshot(view);
    return {
      kind: 'PERSON_360',
      userId,
      link: `/api/backoffice/people/${userId}`,
      snapshot,
      snapshotTakenAt: takenAt,
      snapshotBytes: bytes,
      snapshotCut: cut,
    };
  }
}
