import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { AppException, isErrorCode } from '@mm/errors';
import type { AuthUser } from '../access/permissions';
import { permissionsOf } from '../access/role-matrix';
import { requestHash } from '../common/canonical-hash';
import { encodeCursor } from '../common/cursor';
import { OrchestratorConfig } from '../orchestrator.config';
import type { ApprovalAction, ApprovalHandler } from './approval-handler';
import { ApprovalRegistry } from './approval-registry';
import { type ApprovalRow, ApprovalRequestsStore, effectiveStatus } from './approval-requests.store';
import { toApprovalView } from './approval-view.mapper';
import type { ApprovalRequestView } from './approval.views';

export interface SubmitApproval {
  action: ApprovalAction;
  payload: unknown;
  reason: string;
}

/** Why a viewer may not decide a request (the console hides the buttons and says this instead). */
export type DecisionRefusal =
  'APPROVAL_SELF_DECISION' | 'APPROVAL_EXPIRED' | 'APPROVAL_ALREADY_DECIDED' | 'APPROVAL_COMPLIANCE_REQUIRED' | 'FORBIDDEN';

/**
 * The one maker-checker engine. A maker submits an action (its handler parses, describes and
 * prepares it); a different user holding the handler's checker permission approves it (the engine
 * claims it with one conditional UPDATE, then the handler executes it with the checker's identity)
 * or rejects it (the handler releases what prepare reserved). Nobody decides in time: the sweep
 * expires it. See docs/approvals.md.
 */
@Injectable()
export class ApprovalsService {
  private readonly logger = new Logger(ApprovalsService.name);

  constructor(
    private readonly registry: ApprovalRegistry,
    private readonly store: ApprovalRequestsStore,
    private readonly config: OrchestratorConfig,
  ) {}

  /** True when the action runs on its maker's word alone (configuration, never for a mandatory four-eyes handler). */
  isOnePerson(action: ApprovalAction): boolean {
    return (
      this.config.APPROVALS_ONE_PERSON_ACTIONS.includes(action) &&
      !(this.registry.has(action) && this.registry.get(action).fourEyesMandatory)
    );
  }

  /**
   * Records the request (maker, exact payload, reason, expiry) and runs the handler's prepare.
   * Answers the request PENDING, or EXECUTED when configuration lets this action run on one pair of
   * eyes (a refusal of that execution is thrown as the handler threw it, and recorded FAILED).
   * A second identical live request is refused (409 APPROVAL_DUPLICATE_PENDING, naming the first).
   */
  async submit(user: AuthUser, input: SubmitApproval): Promise<ApprovalRequestView> {
    const handler = this.handler(input.action);
    requirePermission(user, handler.makerPermission);
    const payload = handler.parse(input.payload);
    const described = handler.describe(payload);
    const dedupKey = handler.dedupKey?.(payload) ?? requestHash(payload);
    const fourEyes = !this.isOnePerson(input.action);
    const id = randomUUID();

    // One transaction: a prepare that throws leaves nothing behind, and an identical submission made
    // meanwhile waits on the unique index until this one is stored or gone.
    const row = await this.store.transaction(async (m) => {
      const inserted = await this.store.insert(m, {
        id,
        action: input.action,
        fourEyes,
        target: described.target,
        summary: described.summary.slice(0, 500),
        amount: described.amount ?? null,
        payload,
        dedupKey,
        reason: input.reason,
        makerId: user.userId,
        makerRole: user.role,
        ttlSeconds: this.config.APPROVAL_TTL_SECONDS,
      });
      if (!inserted) {
        const existing = await this.store.findLive(m, input.action, dedupKey);
        throw new AppException(
          'APPROVAL_DUPLICATE_PENDING',
          `An identical ${input.action} request is already waiting for a decision or being carried out: ${existing ?? 'decided just now'}`,
        );
      }
      const prepared = handler.prepare ? await handler.prepare(payload, user, id) : null;
      if (prepared !== null) await this.store.setPrepared(m, id, prepared);
      if (fourEyes) return { ...inserted, prepared };
      // One pair of eyes: the maker is the checker, claimed in the same transaction.
      return this.store.claim(m, id, { id: user.userId, role: user.role }, null);
    });
    if (!row) throw new Error(`approval request ${id} could not be claimed by its maker`);
    this.logger.log({ msg: 'approval request submitted', requestId: id, action: input.action, makerId: user.userId, fourEyes });
    if (fourEyes) return toApprovalView(row);

    const done = await this.execute(row, user, handler);
    if (done.error) throw done.error;
    return toApprovalView(done.row);
  }

  /** The request as stored, with the effective status (a pending request past expiry reads EXPIRED). */
  async get(id: string): Promise<ApprovalRow> {
    const row = await this.store.get(id);
    if (!row) throw new AppException('APPROVAL_NOT_FOUND', `No approval request ${id}`);
    if (row.status === 'PENDING' && row.expired) return (await this.expireOne(row)) ?? row;
    return row;
  }

  async view(id: string): Promise<ApprovalRequestView> {
    return toApprovalView(await this.get(id));
  }

  /** What approving would do, computed now by the handler, and whether this viewer may decide. */
  async detail(
    id: string,
    viewer: AuthUser,
  ): Promise<{ request: ApprovalRequestView; preview: unknown; viewer: { canDecide: boolean; reasonIfNot: DecisionRefusal | null } }> {
    const row = await this.get(id);
    const handler = this.handler(row.action);
    const preview = await handler.preview(handler.parse(row.payload), row.prepared, viewer);
    const refusal = this.refusal(row, viewer, handler);
    return {
      request: toApprovalView(row),
      preview: preview ?? null,
      viewer: { canDecide: refusal === null, reasonIfNot: refusal ? (refusal.code as DecisionRefusal) : null },
    };
  }

  async list(filter: Parameters<ApprovalRequestsStore['list']>[0]): Promise<{ items: ApprovalRequestView[]; nextCursor: string | null }> {
    const rows = await this.store.list({ ...filter, limit: filter.limit + 1 });
    const page = rows.slice(0, filter.limit);
    const last = page[page.length - 1];
    return {
      items: page.map(toApprovalView),
      nextCursor: rows.length > filter.limit && last ? encodeCursor([new Date(last.created_at).toISOString(), last.id]) : null,
    };
  }

  /**
   * Approves and carries out a request. Refused to a user without the checker permission, to the
   * maker, past the expiry, once decided, and above APPROVAL_COMPLIANCE_LIMIT to anyone but a
   * compliance officer. A refusal where the action runs is recorded FAILED (answered, not thrown).
   */
  async approve(user: AuthUser, id: string, reason: string | null): Promise<ApprovalRequestView> {
    const row = await this.get(id);
    const handler = this.handler(row.action);
    const refusal = this.refusal(row, user, handler);
    if (refusal) throw refusal;
    const claimed = await this.store.claim(this.store.queryable, id, { id: user.userId, role: user.role }, reason);
    if (!claimed) throw this.refusal(await this.get(id), user, handler) ?? new AppException('APPROVAL_ALREADY_DECIDED');
    this.logger.log({ msg: 'approval request approved', requestId: id, action: row.action, checkerId: user.userId });
    return toApprovalView((await this.execute(claimed, user, handler)).row);
  }

  /** Rejects a pending request with a reason; the handler releases what prepare reserved. */
  async reject(user: AuthUser, id: string, reason: string): Promise<ApprovalRequestView> {
    const row = await this.get(id);
    const handler = this.handler(row.action);
    const refusal = this.refusal(row, user, handler, { rejecting: true });
    if (refusal) throw refusal;
    const rejected = await this.store.reject(id, { id: user.userId, role: user.role }, reason);
    if (!rejected)
      throw this.refusal(await this.get(id), user, handler, { rejecting: true }) ?? new AppException('APPROVAL_ALREADY_DECIDED');
    this.logger.log({ msg: 'approval request rejected', requestId: id, action: row.action, checkerId: user.userId });
    await this.release(rejected, user, reason);
    return toApprovalView(rejected);
  }

  /**
   * Bulk decisions: each id decided in turn as if alone; a refusal of one (maker, expired, decided…)
   * is its outcome and does not stop the others.
   */
  async decideMany(
    user: AuthUser,
    ids: string[],
    decision: 'APPROVE' | 'REJECT',
    reason: string,
  ): Promise<
    Array<{
      id: string;
      outcome: 'EXECUTED' | 'FAILED' | 'REJECTED' | 'REFUSED';
      request: ApprovalRequestView | null;
      error: { code: string; message: string } | null;
    }>
  > {
    const results = [];
    for (const id of ids) {
      try {
        const request = decision === 'APPROVE' ? await this.approve(user, id, reason) : await this.reject(user, id, reason);
        const outcome = request.status === 'FAILED' ? 'FAILED' : request.status === 'REJECTED' ? 'REJECTED' : 'EXECUTED';
        results.push({ id, outcome, request, error: null } as const);
      } catch (error) {
        if (!(error instanceof AppException)) this.logger.error({ msg: 'bulk decision failed', requestId: id, err: error });
        const code = error instanceof AppException ? error.code : 'INTERNAL_ERROR';
        const message = error instanceof AppException ? error.message : 'Internal error';
        results.push({ id, outcome: 'REFUSED', request: null, error: { code, message } } as const);
      }
    }
    return results;
  }

  /** Closes every pending request past its expiry (the sweep), releasing each; answers how many. */
  async expireDue(limit = 100): Promise<number> {
    const rows = await this.store.expire({ limit });
    for (const row of rows) await this.release(row, null, 'expired');
    return rows.length;
  }

  /** Runs again the executions a crash left EXECUTING past the grace period (handlers are idempotent on the request id). */
  async resumeStuck(limit = 20): Promise<number> {
    const rows = await this.store.reclaimStuck(this.config.APPROVAL_EXECUTING_GRACE_SECONDS, limit);
    for (const row of rows) {
      const checker = actorOf(row.checker_id!, row.checker_role!);
      await this.execute(row, checker, this.handler(row.action)).catch((error: unknown) =>
        this.logger.error({ msg: 'approval execution resumed and failed again', requestId: row.id, err: error }),
      );
    }
    return rows.length;
  }

  /** Why `user` may not decide `row` now, or null. */
  private refusal(row: ApprovalRow, user: AuthUser, handler: ApprovalHandler, options: { rejecting?: boolean } = {}): AppException | null {
    if (!user.permissions.includes(handler.checkerPermission)) {
      return new AppException('FORBIDDEN', `This requires the ${handler.checkerPermission} permission`);
    }
    if (row.four_eyes && row.maker_id === user.userId) return new AppException('APPROVAL_SELF_DECISION');
    const status = effectiveStatus(row);
    if (status === 'EXPIRED') return new AppException('APPROVAL_EXPIRED');
    if (status !== 'PENDING') return new AppException('APPROVAL_ALREADY_DECIDED', `The request is already ${status}`);
    if (
      !options.rejecting &&
      row.amount !== null &&
      Number(row.amount) > this.config.APPROVAL_COMPLIANCE_LIMIT &&
      user.role !== 'COMPLIANCE'
    ) {
      return new AppException('APPROVAL_COMPLIANCE_REQUIRED');
    }
    return null;
  }

  /**
   * EXECUTING → EXECUTED with what the handler returned, or FAILED with the code and message of the
   * handler's refusal. An error that is not a refusal (a timeout, a 5xx: the action may have happened)
   * leaves the request EXECUTING for the sweep to run again, and is thrown.
   */
  private async execute(
    row: ApprovalRow,
    checker: AuthUser,
    handler: ApprovalHandler,
  ): Promise<{ row: ApprovalRow; error: AppException | null }> {
    let result: unknown;
    try {
      result = await handler.execute(handler.parse(row.payload), row.prepared, checker, row.id);
    } catch (error) {
      if (error instanceof AppException && isErrorCode(error.code) && error.status < 500) {
        this.logger.warn({ msg: 'approval request failed where it runs', requestId: row.id, action: row.action, code: error.code });
        const failed = (await this.store.failed(row.id, { code: error.code, message: error.message })) ?? (await this.get(row.id));
        return { row: failed, error };
      }
      throw error;
    }
    const stored =
      result === undefined || result === null ? null : typeof result === 'object' && !Array.isArray(result) ? result : { value: result };
    this.logger.log({ msg: 'approval request executed', requestId: row.id, action: row.action });
    return { row: (await this.store.executed(row.id, stored as Record<string, unknown> | null)) ?? (await this.get(row.id)), error: null };
  }

  private async release(row: ApprovalRow, by: AuthUser | null, reason: string): Promise<void> {
    const handler = this.registry.has(row.action) ? this.registry.get(row.action) : null;
    if (!handler?.release) return;
    try {
      await handler.release(handler.parse(row.payload), row.prepared, by, reason);
    } catch (error) {
      // The decision stands; what prepare reserved stays reserved until someone looks (logged once, with the request).
      this.logger.error({ msg: 'approval release failed', requestId: row.id, action: row.action, err: error });
    }
  }

  private async expireOne(row: ApprovalRow): Promise<ApprovalRow | null> {
    const [expired] = await this.store.expire({ id: row.id, limit: 1 });
    if (!expired) return this.store.get(row.id);
    await this.release(expired, null, 'expired');
    return expired;
  }

  private handler(action: ApprovalAction): ApprovalHandler {
    if (!this.registry.has(action)) throw new AppException('APPROVAL_ACTION_UNAVAILABLE', `No handler runs ${action} on this platform`);
    return this.registry.get(action);
  }
}

function requirePermission(user: AuthUser, permission: AuthUser['permissions'][number]): void {
  if (!user.permissions.includes(permission)) throw new AppException('FORBIDDEN', `This requires the ${permission} permission`);
}

/** The checker as the sweep knows them (no session, no token): their id, role and the role's permissions. */
function actorOf(userId: string, role: string): AuthUser {
  return { userId, role: role as AuthUser['role'], sessionId: '', accessToken: '', permissions: permissionsOf([role]) };
}
