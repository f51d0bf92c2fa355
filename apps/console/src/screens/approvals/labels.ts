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
};

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
