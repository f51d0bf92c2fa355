import { Injectable } from '@nestjs/common';
import { AppException, type FieldError } from '@mm/errors';
import { isUuid } from '@mm/platform';
import type { AuthUser } from '../../access/permissions';
import { AdminUsersService } from '../../identities/admin/admin-users.service';
import type { ApprovalHandler, PreparedState } from '../../approvals/approval-handler';
import { CustomersService } from '../../identities/customers/customers.service';
import { readPayload } from '../../approvals/approval-payload';
import { assertDecidable, assertVersion } from './case-actions.service';
import { CaseStore } from './case.store';

export interface CaseFreezePayload {
  caseId: string;
  /** the deciding officer's words: the case's decision note and the freeze's reason */
  reason: string;
  /** the case version the officer decided on (`version` of the case view) */
  expectedVersion: number;
}

interface Prepared {
  requestId: string;
  reference: string;
  subjectUserId: string;
  makerId: string;
}

const REASON = {
  test: (v: string) => v.trim().length >= 3 && v.length <= 500,
  code: 'INVALID_REASON',
  message: 'must be 3 to 500 characters',
};

const MAX_VERSION = 2_147_483_647;

function versionError(value: unknown): FieldError | null {
  if (value === undefined) return { field: 'payload.expectedVersion', code: 'REQUIRED', message: 'is required' };
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_VERSION) {
    return { field: 'payload.expectedVersion', code: 'INVALID_VERSION', message: `must be an integer from 0 to ${MAX_VERSION}` };
  }
  return null;
}

function preparedOf(state: PreparedState): Prepared {
  return state as unknown as Prepared;
}

/**
 * CASE_FREEZE: a compliance case closed with the decision FREEZE, always on four eyes. Submitting
 * it (the officer the case is assigned to, on the case version they read) puts the case in DECISION_PENDING with the request's id, so nobody closes it
 * otherwise meanwhile; approving it (another holder of `compliance.monitoring`) freezes the person
 * as the checker (AdminUsersService: our status and auth's, sessions ended) and closes the case
 * FREEZE, linked to the request, decided by the maker. A rejected, expired or failed request puts
 * the case back in review. Every step writes the case's history.
 */
@Injectable()
export class CaseFreezeHandler implements ApprovalHandler<CaseFreezePayload> {
  readonly action = 'CASE_FREEZE' as const;
  readonly makerPermission = 'compliance.monitoring' as const;
  readonly checkerPermission = 'compliance.monitoring' as const;
  /** Freezing a person on one officer's word is what this action exists to prevent: APPROVALS_ONE_PERSON_ACTIONS may not list it. */
  readonly fourEyesMandatory = true;

  constructor(
    private readonly store: CaseStore,
    private readonly customers: CustomersService,
    private readonly users: AdminUsersService,
  ) {}

  parse(payload: unknown): CaseFreezePayload {
    const body = typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {};
    const { expectedVersion, ...fields } = body;
    const versionRefused = versionError(expectedVersion);
    let read: { caseId: string; reason: string };
    try {
      read = readPayload(fields, { caseId: { test: isUuid, code: 'INVALID_UUID', message: 'must be a UUID' }, reason: REASON });
    } catch (error) {
      const errors = (error as AppException).errors;
      if (!versionRefused || !errors) throw error;
      throw new AppException('VALIDATION_ERROR', `${(error as Error).message}; payload.expectedVersion ${versionRefused.message}`, {
        errors: [...errors, versionRefused],
      });
    }
    if (versionRefused) {
      throw new AppException('VALIDATION_ERROR', `${versionRefused.field} ${versionRefused.message}`, { errors: [versionRefused] });
    }
    return { caseId: read.caseId.toLowerCase(), reason: read.reason, expectedVersion: expectedVersion as number };
  }

  describe(payload: CaseFreezePayload, prepared?: PreparedState) {
    const p = prepared ? preparedOf(prepared) : null;
    return {
      target: { type: 'customer' as const, id: p?.subjectUserId ?? payload.caseId },
      summary: `Freeze user ${p?.subjectUserId ?? '?'} and close compliance case ${p?.reference ?? payload.caseId} with FREEZE: ${payload.reason}`,
    };
  }

  /** One live freeze per case. */
  dedupKey(payload: CaseFreezePayload): string {
    return payload.caseId;
  }

  async prepare(payload: CaseFreezePayload, maker: AuthUser, requestId: string): Promise<PreparedState> {
    return this.store.transaction(async (tx) => {
      const row = await this.store.get(payload.caseId, tx, true);
      assertDecidable(row, maker.userId);
      assertVersion(row, await this.store.version(row.id, tx), payload.expectedVersion);
      const person = await this.customers.findByUserId(row.subject_user_id);
      if (!person || person.status === 'closed') throw new AppException('CASE_SUBJECT_NOT_FREEZABLE');
      if (person.status === 'frozen') throw new AppException('CASE_SUBJECT_ALREADY_FROZEN');
      await tx.query(`UPDATE orchestrator.monitoring_cases SET status = 'DECISION_PENDING', pending_request_id = $2 WHERE id = $1`, [
        row.id,
        requestId,
      ]);
      await this.store.event(tx, row.id, 'DECISION_REQUESTED', maker.userId, { decision: 'FREEZE', requestId, note: payload.reason });
      const prepared: Prepared = { requestId, reference: row.reference, subjectUserId: row.subject_user_id, makerId: maker.userId };
      return { ...prepared };
    });
  }

  async preview(payload: CaseFreezePayload, prepared: PreparedState) {
    const row = await this.store.get(payload.caseId);
    const person = await this.customers.findByUserId(row.subject_user_id);
    return {
      case: { id: row.id, reference: row.reference, status: row.status, subjectUserId: row.subject_user_id, subjectKind: row.subject_kind },
      person: person
        ? {
            userId: person.userId,
            role: person.role,
            phone: person.phone,
            name: `${person.firstName} ${person.lastName}`,
            status: person.status,
          }
        : null,
      decidedBy: prepared ? preparedOf(prepared).makerId : null,
      effect: 'The person is frozen (no sign-in, no money movement) and the case closes with the decision FREEZE',
    };
  }

  async execute(payload: CaseFreezePayload, prepared: PreparedState, checker: AuthUser, requestId: string) {
    const p = preparedOf(prepared);
    const person = await this.customers.findByUserId(p.subjectUserId);
    if (!person) throw new AppException('CASE_SUBJECT_NOT_FREEZABLE');
    // Idempotent: a person already frozen stays so (a run after a crash finds it done).
    const frozen = await this.users.freeze(
      person.id,
      `Compliance case ${p.reference}: ${payload.reason}`.slice(0, 440) + ` (approval ${requestId})`,
      checker.userId,
      'OTHER',
    );
    await this.store.transaction(async (tx) => {
      const row = await this.store.get(payload.caseId, tx, true);
      if (row.status === 'CLOSED' && row.decision_request_id === requestId) return;
      if (row.pending_request_id !== requestId)
        throw new AppException('CASE_CLOSED', `Case ${row.reference} no longer waits for this request`);
      await tx.query(
        `UPDATE orchestrator.monitoring_cases
            SET status = 'CLOSED', decision = 'FREEZE', decision_note = $2, decided_by = $3, decided_at = now(),
                decision_request_id = $4, pending_request_id = NULL
          WHERE id = $1`,
        [row.id, payload.reason, p.makerId, requestId],
      );
      await this.store.event(tx, row.id, 'DECIDED', p.makerId, {
        decision: 'FREEZE',
        requestId,
        approvedBy: checker.userId,
        note: payload.reason,
      });
    });
    return { caseId: payload.caseId, reference: p.reference, userId: frozen.userId, status: frozen.status };
  }

  /** Rejected, expired, failed or never stored: the case is back in review (or open, if nobody holds it). */
  async release(payload: CaseFreezePayload, prepared: PreparedState, by: AuthUser | null, reason: string): Promise<void> {
    await this.withdraw(payload.caseId, preparedOf(prepared).requestId, by?.userId ?? null, reason);
  }

  async abandon(payload: CaseFreezePayload, requestId: string): Promise<void> {
    await this.withdraw(payload.caseId, requestId, null, 'the request was never stored');
  }

  private async withdraw(caseId: string, requestId: string, by: string | null, reason: string): Promise<void> {
    await this.store.transaction(async (tx) => {
      const row = await this.store.find(caseId, tx, true);
      if (!row || row.pending_request_id !== requestId) return;
      await tx.query(
        `UPDATE orchestrator.monitoring_cases
            SET status = CASE WHEN assignee_id IS NULL THEN 'OPEN' ELSE 'IN_REVIEW' END, pending_request_id = NULL WHERE id = $1`,
        [caseId],
      );
      await this.store.event(tx, caseId, 'DECISION_WITHDRAWN', by, { decision: 'FREEZE', requestId, reason: reason.slice(0, 500) });
    });
  }
}
