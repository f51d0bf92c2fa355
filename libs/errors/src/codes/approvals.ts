/** The maker-checker engine (`/api/backoffice/approvals`). Never rename or re-status a shipped code; append new ones. */
export const APPROVALS_ERRORS = {
  APPROVAL_NOT_FOUND: { status: 404, message: 'Approval request not found' },
  APPROVAL_DUPLICATE_PENDING: {
    status: 409,
    message: 'An identical request is already waiting for a decision (or being carried out): decide that one first',
  },
  APPROVAL_SELF_DECISION: { status: 403, message: 'The maker of a request can never approve or reject it' },
  APPROVAL_EXPIRED: { status: 409, message: 'The request expired before anyone decided it: submit it again' },
  APPROVAL_ALREADY_DECIDED: { status: 409, message: 'The request has already been decided' },
  APPROVAL_COMPLIANCE_REQUIRED: {
    status: 403,
    message: 'The amount is above APPROVAL_COMPLIANCE_LIMIT: only a compliance officer may approve it',
  },
  APPROVAL_ACTION_UNAVAILABLE: { status: 400, message: 'No handler runs this action on this platform' },
  EXECUTION_INTERRUPTED: {
    status: 409,
    message: 'The approved action was cut short before it was carried out, and has been called off: submit it again',
  },
  APPROVAL_CHECKER_CONCERNED: { status: 403, message: 'The request concerns you: another checker must decide it' },
} as const satisfies Record<string, { status: number; message: string }>;
