import type { components } from '../../api/schema';

export type Approval = components['schemas']['ApprovalRequestView'];
export type ApprovalAction = Approval['action'];
export type ApprovalStatus = Approval['status'];

/** Every action of the maker-checker engine in words: an action added to the API fails the type-check until named here. */
export const ACTION_LABELS: Record<ApprovalAction, string> = {
  LEDGER_CORRECTION: 'Ledger correction',
  LEDGER_REVERSAL: 'Reversal',
  FLOAT_FUNDING: 'Agent float funding',
  HOLD_PLACE: 'Place a hold',
  HOLD_RELEASE: 'Release a hold',
  CUSTOMER_UNFREEZE: 'Unfreeze',
  CONFIG_CHANGE: 'Configuration change',
  PARTNER_KEY_ISSUE: 'Partner key issuance',
  PARTNER_KEY_REVOKE: 'Partner key revocation',
  STAFF_ROLE_CHANGE: 'Staff role change',
  STAFF_TOTP_RESET: 'Second factor reset',
  STAFF_CREATE: 'New compliance officer or administrator',
  STAFF_DISABLE: 'Disable a staff member',
  STAFF_ENABLE: 'Enable a staff member again',
  BLOCKLIST_REMOVE: 'Lift a blocklist entry',
  WEBHOOK_SECRET_ROTATE: 'Webhook signing secret rotation',
  CASE_FREEZE: 'Freeze decided on a compliance case',
};

/**
 * An action in words, or its code when this console is older than the platform (an action the
 * snapshot does not know yet still shows, never a blank cell).
 */
export function actionLabel(action: string): string {
  return (ACTION_LABELS as Record<string, string | undefined>)[action] ?? action;
}

export const STATUS_LABELS: Record<ApprovalStatus, string> = {
  PENDING: 'Waiting for a checker',
  EXECUTING: 'Being carried out',
  EXECUTED: 'Carried out',
  REJECTED: 'Rejected',
  EXPIRED: 'Expired',
  FAILED: 'Failed',
};

export const STATUS_COLORS: Record<ApprovalStatus, string> = {
  PENDING: 'yellow',
  EXECUTING: 'blue',
  EXECUTED: 'green',
  REJECTED: 'gray',
  EXPIRED: 'gray',
  FAILED: 'red',
};

/** Why the platform would refuse this operator's decision, in words. */
export const CANNOT_DECIDE: Record<NonNullable<components['schemas']['ApprovalViewerView']['reasonIfNot']>, string> = {
  APPROVAL_SELF_DECISION: 'You submitted this request: another person must check it.',
  APPROVAL_EXPIRED: 'This request has expired.',
  APPROVAL_ALREADY_DECIDED: 'This request has already been decided.',
  APPROVAL_COMPLIANCE_REQUIRED: 'Above your role’s threshold: a compliance officer must check it.',
  APPROVAL_CHECKER_CONCERNED: 'The request concerns you: another checker must decide it.',
  FORBIDDEN: 'Your role cannot decide this action.',
};

/** Why this operator cannot decide, in words; a reason this console does not know yet shows as its code. */
export function cannotDecide(reason: string): string {
  return (CANNOT_DECIDE as Record<string, string | undefined>)[reason] ?? `The platform refuses your decision (${reason}).`;
}
