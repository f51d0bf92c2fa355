import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { AppException, isErrorCode } from '@mm/errors';
import type { AuthUser } from '../access/permissions';
import { permissionsOf } from '../access/role-matrix';
import { requestHash } from '../common/canonical-hash';
import { encodeCursor } from '../common/cursor';
import { OrchestratorConfig } from '../orchestrator.config';
import type { ApprovalAction, ApprovalHandler, PreparedState } from './approval-handler';
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
  | 'APPROVAL_SELF_DECISION'
  | 'APPROVAL_EXPIRED'
  | 'APPROVAL_ALREADY_DECIDED'
  | 'APPROVAL_COMPLIANCE_REQUIRED'
  | 'APPROVAL_CHECKER_CONCERNED'
  | 'FORBIDDEN';

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
   * Records the request (maker, exact payload, reason, expiry) after the handler's prepare. Answers
   * the request PENDING, or EXECUTED when configuration lets this action run on one pair of eyes
   * (a refusal of that execution is thrown as the handler threw it, and recorded FAILED). A second
   * identical live request is refused (409 APPROVAL_DUPLICATE_PENDING, naming the first).
   *
   * Crash safety: prepare reaches another service with the request id as idempotency key, outside
   * any transaction, so a write-ahead mark (approval_preparations) is committed first and removed in
   * the transaction that stores the request. A request that cannot be stored has its reservation
   * released at once; a mark left by a crash or a lost answer is given back by the sweep (`abandon`).
   * The description (target, summary, amount) is the handler's, from the payload AND what prepare
   * found, so a request shows what will really happen.
   */
  async submit(user: AuthUser, input: SubmitApproval): Promise<ApprovalRequestView> {
    const handler = this.handler(input.action);
    requirePermission(user, handler.makerPermission);
    const payload = handler.parse(input.payload);
    const dedupKey = handler.dedupKey?.(payload) ?? requestHash(payload);
    // the usual duplicate is refused before anything is reserved; the unique index decides a race
    const live = await this.store.findLive(this.store.queryable, input.action, dedupKey);
    if (live) throw duplicate(input.action, live);
    const id = randomUUID();

    let prepared: PreparedState = null;
    if (handler.prepare) {
      await this.store.markPreparation(id, input.action, payload);
      try {
        prepared = await handler.prepare(payload, user, id);
      } catch (error) {
        // refused: nothing was reserved; an unknown outcome keeps the mark for the sweep
        if (isRefusal(error)) await this.store.unmarkPreparation(id);
        throw error;
      }
    }
    let row: ApprovalRow | null;
    let fourEyes = true;
    try {
      const described = handler.describe(payload, prepared);
      // one pair of eyes only below the compliance threshold: above it, four eyes whatever the configuration
      fourEyes = !this.isOnePerson(input.action) || this.needsCompliance(handler, payload, prepared, described.amount?.value ?? null);
      row = await this.store.transaction(async (m) => {
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
          prepared,
        });
        if (!inserted) throw duplicate(input.action, (await this.store.findLive(m, input.action, dedupKey)) ?? 'decided just now');
        if (handler.prepare) await this.store.unmarkPreparation(id, m);
        if (fourEyes) return inserted;
        // One pair of eyes: the maker is the checker, claimed in the same transaction.
        return this.store.claim(m, id, { id: user.userId, role: user.role }, null);
      });
    } catch (error) {
      if (handler.prepare) await this.giveBack(handler, payload, prepared, id, 'submission failed');
      throw error;
    }
    if (!row) throw new Error(`approval request ${id} could not be claimed by its maker`);
    this.logger.log({ msg: 'approval request submitted', requestId: id, action: input.action, makerId: user.userId, fourEyes });
    if (fourEyes) return toApprovalView(row);

    const done = await this.execute(row, user, handler);
    if (done.error) throw done.error;
    return toApprovalView(done.row);
  }

  /**
   * The request as stored. A pending request past its expiry reads EXPIRED (`effectiveStatus`) but
   * is not written here: reading never writes nor calls another service; the sweep stores the
   * expiry and releases the reservation.
   */
  async get(id: string): Promise<ApprovalRow> {
    const row = await this.store.get(id);
    if (!row) throw new AppException('APPROVAL_NOT_FOUND', `No approval request ${id}`);
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
    const done = await this.execute(claimed, user, handler);
    if (done.error && done.row.status === 'PENDING') throw done.error; // the checker refused where it runs: still pending
    return toApprovalView(done.row);
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

  /**
   * Finishes the executions a crash or a lost answer left EXECUTING past the grace period. A handler
   * with `settle` finds out, with the service's own credential, what happened where the action runs
   * (done: EXECUTED with its result; not done: FAILED, released, submit again); any other handler
   * runs `execute` again (idempotent on the request id) with the checker's id and role, no token.
   */
  async resumeStuck(limit = 20): Promise<number> {
    const rows = await this.store.reclaimStuck(this.config.APPROVAL_EXECUTING_GRACE_SECONDS, limit);
    for (const row of rows) {
      const handler = this.handler(row.action);
      const resumed = handler.settle ? this.settle(row, handler) : this.execute(row, actorOf(row.checker_id!, row.checker_role!), handler);
      await resumed.catch((error: unknown) =>
        this.logger.error({ msg: 'approval execution resumed and failed again', requestId: row.id, err: error }),
      );
    }
    return rows.length;
  }

  /** Gives back the reservations of final requests whose release failed or never ran (the sweep); answers how many were done. */
  async retryReleases(limit = 50): Promise<number> {
    let done = 0;
    for (const row of await this.store.unreleased(limit))
      if (await this.release(row, null, `request ${row.status.toLowerCase()}`)) done += 1;
    return done;
  }

  /** Gives back what a prepare reserved for a request that was never stored (a crash, a lost answer); answers how many. */
  async abandonStray(limit = 50): Promise<number> {
    let done = 0;
    for (const mark of await this.store.strayPreparations(this.config.APPROVAL_EXECUTING_GRACE_SECONDS, limit)) {
      const handler = this.registry.has(mark.action) ? this.registry.get(mark.action) : null;
      try {
        if (handler?.abandon) await handler.abandon(handler.parse(mark.payload), mark.request_id);
        await this.store.unmarkPreparation(mark.request_id);
        done += 1;
      } catch (error) {
        this.logger.error({ msg: 'approval preparation could not be given back; next sweep', requestId: mark.request_id, err: error });
      }
    }
    return done;
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
    const payload = handler.parse(row.payload);
    const amount = row.amount === null ? null : Number(row.amount);
    if (!options.rejecting && user.role !== 'COMPLIANCE' && this.needsCompliance(handler, payload, row.prepared, amount)) {
      return new AppException('APPROVAL_COMPLIANCE_REQUIRED');
    }
    return handler.refuseChecker?.(payload, row.prepared, user) ?? null;
  }

  /** Above APPROVAL_COMPLIANCE_LIMIT, or when the handler says so (the ledger's own limit): only compliance approves. */
  private needsCompliance(handler: ApprovalHandler, payload: unknown, prepared: PreparedState, amount: number | null): boolean {
    return (
      (amount !== null && amount > this.config.APPROVAL_COMPLIANCE_LIMIT) || (handler.requiresCompliance?.(payload, prepared) ?? false)
    );
  }

  /**
   * EXECUTING → EXECUTED with what the handler returned, or FAILED with the code and message of the
   * handler's refusal (then what prepare reserved is released). A 403 on a four-eyes request is a
   * refusal of this checker, not of the action: the claim is undone and the request waits, PENDING,
   * for a checker the place it runs accepts. An error that is not a refusal (a timeout, a 5xx: the
   * action may have happened) leaves the request EXECUTING for the sweep to settle, and is thrown.
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
        if (error.status === 403 && row.four_eyes && checker.accessToken) {
          const pending = await this.store.unclaim(row.id, checker.userId);
          if (pending) {
            this.logger.warn({ msg: 'approval checker refused where it runs; pending again', requestId: row.id, code: error.code });
            return { row: pending, error };
          }
        }
        this.logger.warn({ msg: 'approval request failed where it runs', requestId: row.id, action: row.action, code: error.code });
        return { row: await this.fail(row, { code: error.code, message: error.message }), error };
      }
      throw error;
    }
    const stored =
      result === undefined || result === null ? null : typeof result === 'object' && !Array.isArray(result) ? result : { value: result };
    this.logger.log({ msg: 'approval request executed', requestId: row.id, action: row.action });
    return { row: (await this.store.executed(row.id, stored as Record<string, unknown> | null)) ?? (await this.get(row.id)), error: null };
  }

  /** EXECUTING → FAILED, then what prepare reserved is given back (with the service's credential: nobody decided that). */
  private async fail(row: ApprovalRow, failure: { code: string; message: string }): Promise<ApprovalRow> {
    const failed = await this.store.failed(row.id, failure);
    if (!failed) return this.get(row.id);
    await this.release(failed, null, `Approval request ${row.id} failed: ${failure.code}`);
    return failed;
  }

  /** An execution cut short, finished from what the handler finds where the action runs. */
  private async settle(row: ApprovalRow, handler: ApprovalHandler): Promise<void> {
    const outcome = await handler.settle!(handler.parse(row.payload), row.prepared, row.id);
    if (outcome.status === 'EXECUTED') {
      this.logger.log({ msg: 'approval execution settled: executed', requestId: row.id, action: row.action });
      await this.store.executed(row.id, outcome.result);
    } else {
      this.logger.warn({ msg: 'approval execution settled: failed', requestId: row.id, action: row.action, code: outcome.code });
      await this.fail(row, outcome);
    }
  }

  /**
   * Gives back what prepare reserved for a final request (rejected: `by` is the checker; expired or
   * failed: null) and records it (released_at). A failure is logged; the sweep tries again.
   */
  private async release(row: ApprovalRow, by: AuthUser | null, reason: string): Promise<boolean> {
    const handler = this.registry.has(row.action) ? this.registry.get(row.action) : null;
    try {
      // no handler on this platform, or none that reserves anything: nothing to give back
      if (handler?.release) await handler.release(handler.parse(row.payload), row.prepared, by, reason);
      await this.store.released(row.id);
      return true;
    } catch (error) {
      this.logger.error({ msg: 'approval release failed; the sweep tries again', requestId: row.id, action: row.action, err: error });
      return false;
    }
  }

  /** After a request could not be stored: release what prepare reserved, then drop the mark (kept for the sweep on failure). */
  private async giveBack(handler: ApprovalHandler, payload: unknown, prepared: PreparedState, id: string, reason: string): Promise<void> {
    try {
      if (prepared !== null && handler.release) await handler.release(payload, prepared, null, reason);
      await this.store.unmarkPreparation(id);
    } catch (error) {
      this.logger.error({ msg: 'approval preparation not given back; the sweep will', requestId: id, err: error });
    }
  }

  private handler(action: ApprovalAction): ApprovalHandler {
    if (!this.registry.has(action)) throw new AppException('APPROVAL_ACTION_UNAVAILABLE', `No handler runs ${action} on this platform`);
    return this.registry.get(action);
  }
}

function duplicate(action: ApprovalAction, liveId: string): AppException {
  return new AppException(
    'APPROVAL_DUPLICATE_PENDING',
    `An identical ${action} request is already waiting for a decision or being carried out: ${liveId}`,
  );
}

/** A refusal where the action runs (a 4xx with a known code): nothing was done. */
function isRefusal(error: unknown): boolean {
  return error instanceof AppException && isErrorCode(error.code) && error.status < 500;
}

function requirePermission(user: AuthUser, permission: AuthUser['permissions'][number]): void {
  if (!user.permissions.includes(permission)) throw new AppException('FORBIDDEN', `This requires the ${permission} permission`);
}

/** The checker as the sweep knows them (no session, no token): their id, role and the role's permissions. */
function actorOf(userId: string, role: string): AuthUser {
  return { userId, role: role as AuthUser['role'], sessionId: '', accessToken: '', permissions: permissionsOf([role]) };
}
