import type { AppException } from '@mm/errors';
import type { Permission } from '../access/permission-list';
import type { AuthUser } from '../access/permissions';

/**
 * Every action that can go through the maker-checker engine. A code names what will happen when the
 * request is approved; it is part of the API (filters, the console's labels): add, never rename.
 */
export const APPROVAL_ACTIONS = [
  /** a ledger correction of one account against the currency's suspense account */
  'LEDGER_CORRECTION',
  /** a whole ledger transaction undone */
  'LEDGER_REVERSAL',
  /** money credited to an agent's float account */
  'FLOAT_FUNDING',
  /** an operator's hold placed on an account (available → frozen) */
  'HOLD_PLACE',
  /** an operator's hold lifted (frozen → available) */
  'HOLD_RELEASE',
  /** a frozen customer, merchant or agent allowed to sign in and pay again */
  'CUSTOMER_UNFREEZE',
  /** a new version of a configuration section (fees, limits, risk, blocklist) */
  'CONFIG_CHANGE',
  /** a new API key for a partner integration */
  'PARTNER_KEY_ISSUE',
  /** a partner API key revoked */
  'PARTNER_KEY_REVOKE',
  /** a staff member's or agent's role changed */
  'STAFF_ROLE_CHANGE',
  /** a staff member's second factor removed, so that they enrol again */
  'STAFF_TOTP_RESET',
  /** a phone lifted from the risk blocklist, so that it may pay and be paid again */
  'BLOCKLIST_REMOVE',
  /** a compliance officer or an administrator created (a new person able to check requests) */
  'STAFF_CREATE',
  /** a staff member's access ended: auth disables the user and ends every session */
  'STAFF_DISABLE',
  /** a disabled staff member allowed to sign in again */
  'STAFF_ENABLE',
  /** a partner integration's webhook signing secret replaced (the new one collected once by its maker) */
  'WEBHOOK_SECRET_ROTATE',
  /** a compliance case closed with the decision FREEZE: the person it is about is frozen (docs/monitoring.md) */
  'CASE_FREEZE',
] as const;
export type ApprovalAction = (typeof APPROVAL_ACTIONS)[number];

export const APPROVAL_STATUSES = ['PENDING', 'EXECUTING', 'EXECUTED', 'REJECTED', 'EXPIRED', 'FAILED'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** What a request is about: lists filter on it and the audit trail names it. */
export interface ApprovalTarget {
  type: 'account' | 'transaction' | 'agent' | 'customer' | 'user' | 'config' | 'integration' | 'api-key';
  id: string;
}

/** Anything a handler keeps between submission and decision (e.g. the ledger's correction id). JSON only. */
export type PreparedState = Record<string, unknown> | null;

/** How an execution cut short (its answer lost) ended where the action runs, as `settle` finds it. */
export type Settlement =
  { status: 'EXECUTED'; result: Record<string, unknown> | null } | { status: 'FAILED'; code: string; message: string };

/**
 * One kind of sensitive action, as the engine runs it. A module that owns the action implements it
 * and registers it with `ApprovalRegistry` when it starts (`onModuleInit`); the engine never imports
 * the modules it serves.
 *
 * Lifecycle: `parse` → `prepare` (maker's identity) → `describe` → [pending] → `preview` (any time)
 * → approve: `refuseChecker`, `execute` (checker's identity) | reject, expiry or failure: `release`.
 * Without a person: `settle` (an execution cut short), `abandon` (a prepare whose request was never stored).
 */
export interface ApprovalHandler<P = unknown> {
  readonly action: ApprovalAction;
  /** needed to submit (the submitting route checks it too) */
  readonly makerPermission: Permission;
  /** needed to approve or reject */
  readonly checkerPermission: Permission;
  /**
   * True when configuration can never make this a one-person action (ledger money movements: the
   * ledger itself refuses a correction approved by its maker).
   */
  readonly fourEyesMandatory: boolean;
  /** Validates and normalises the payload; throws AppException('VALIDATION_ERROR', …) with field details. */
  parse(payload: unknown): P;
  /**
   * The target, a one-line summary in words, and the amount when money moves (thresholds, lists),
   * from the payload and what `prepare` found where the action runs (the hold's real amount, the
   * reversal's amount): the engine stores what this answers after `prepare`.
   */
  describe(payload: P, prepared?: PreparedState): { target: ApprovalTarget; summary: string; amount?: { value: number; currency: string } };
  /**
   * Two requests with the same key would do the same thing: a second one is refused while the first
   * is pending. Defaults to the canonical hash of the parsed payload, which includes every free-text
   * field: a handler whose payload carries a reason names the key without it.
   */
  dedupKey?(payload: P): string;
  /**
   * Runs once when the request is submitted, with the maker's identity; may reserve the work where it
   * will run (the ledger keeps a pending correction that only another operator can approve). What it
   * returns is stored with the request. A throw refuses the submission and nothing is stored. Runs
   * outside any transaction; when the request cannot be stored afterwards the engine calls `release`
   * (by = null), and after a crash the sweep calls `abandon`.
   */
  prepare?(payload: P, maker: AuthUser, requestId: string): Promise<PreparedState>;
  /** What approving would do, computed now: the ledger postings, the configuration diff, the key's scopes. */
  preview(payload: P, prepared: PreparedState, viewer: AuthUser): Promise<unknown>;
  /**
   * Carries the action out with the checker's identity (the maker's when the action is configured for
   * one pair of eyes). Must be safe to call again for the same request id after a crash.
   * Returns what the request's `result` shows (ids created, the new version…).
   */
  execute(payload: P, prepared: PreparedState, checker: AuthUser, requestId: string): Promise<unknown>;
  /**
   * Undoes `prepare` when the request is rejected (by = the checker), expires, fails or could not be
   * stored (by = null). Idempotent: the sweep calls it again until it succeeds.
   */
  release?(payload: P, prepared: PreparedState, by: AuthUser | null, reason: string): Promise<void>;
  /**
   * Gives back whatever a `prepare` run with this request id may have reserved, when the request
   * was never stored (a crash between the two). Idempotent; nothing reserved: nothing to do.
   */
  abandon?(payload: P, requestId: string): Promise<void>;
  /**
   * An execution left EXECUTING (its answer lost), finished without a person, with the service's
   * own credential: what happened where the action runs. Throws when that cannot be known yet (the
   * sweep tries again). Without it the sweep runs `execute` again with the checker's id and role but
   * no access token.
   */
  settle?(payload: P, prepared: PreparedState, requestId: string): Promise<Settlement>;
  /** True when only a compliance officer may approve, whatever the amount (what prepare learned, e.g. the ledger's own limit). */
  requiresCompliance?(payload: P, prepared: PreparedState): boolean;
  /** Refuses a checker before anything is claimed (e.g. the person the action concerns), with a stable code; null: no objection. */
  refuseChecker?(payload: P, prepared: PreparedState, checker: AuthUser): AppException | null;
}
