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

/**
 * One kind of sensitive action, as the engine runs it. A module that owns the action implements it
 * and registers it with `ApprovalRegistry` when it starts (`onModuleInit`); the engine never imports
 * the modules it serves.
 *
 * Lifecycle: `parse` → `describe` → `prepare` (maker's identity) → [pending] → `preview` (any time)
 * → approve: `execute` (checker's identity) | reject or expiry: `release`.
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
  /** The target, a one-line summary in words, and the amount when money moves (thresholds, lists). */
  describe(payload: P): { target: ApprovalTarget; summary: string; amount?: { value: number; currency: string } };
  /**
   * Two requests with the same key would do the same thing: a second one is refused while the first
   * is pending. Defaults to the canonical hash of the parsed payload.
   */
  dedupKey?(payload: P): string;
  /**
   * Runs once when the request is submitted, with the maker's identity; may reserve the work where it
   * will run (the ledger keeps a pending correction that only another operator can approve). What it
   * returns is stored with the request. A throw refuses the submission and nothing is stored.
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
  /** Undoes `prepare` when the request is rejected (by = the checker) or expires (by = null). */
  release?(payload: P, prepared: PreparedState, by: AuthUser | null, reason: string): Promise<void>;
}
