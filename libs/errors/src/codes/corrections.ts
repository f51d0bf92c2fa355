/** Ledger corrections under maker-checker, database-enforced balance rules. Never rename or re-status a shipped code; append new ones. */
export const CORRECTIONS_ERRORS = {
  // Exact money: every amount, balance and sum stays within 2^53 − 1 (what a JSON client reads exactly).
  AMOUNT_OUT_OF_RANGE: {
    status: 422,
    message: 'An amount, a sum of amounts or a resulting balance would exceed 2^53 − 1; it is refused, never rounded',
  },

  // Operator corrections under maker-checker (ledger /v1/internal/corrections)
  CORRECTION_APPROVAL_REQUIRED: {
    status: 403,
    message: 'Balances are corrected under maker-checker: submit POST /v1/internal/corrections for another operator to approve',
  },
  OPERATOR_TOKEN_REQUIRED: { status: 401, message: 'An operator access token issued by auth is required (Authorization: Bearer)' },
  OPERATOR_ROLE_REQUIRED: { status: 403, message: 'Your role does not allow this step of a correction' },
  CORRECTION_SAME_USER: { status: 403, message: 'A correction must be approved by another operator than the one who submitted it' },
  CORRECTION_COMPLIANCE_REQUIRED: {
    status: 403,
    message: 'A correction above the compliance limit must be approved by a compliance officer',
  },
  CORRECTION_NOT_FOUND: { status: 404, message: 'Correction not found' },
  CORRECTION_ALREADY_DECIDED: { status: 409, message: 'This correction has already been approved or rejected' },

  // Reversal of a whole ledger transaction (a correction of kind REVERSAL)
  REVERSAL_OF_REVERSAL: {
    status: 422,
    message: 'This transaction is itself a reversal and cannot be reversed; correct the accounts concerned instead',
  },
  REVERSAL_ALREADY_REQUESTED: {
    status: 409,
    message: 'A reversal of this transaction is already awaiting approval; approve or reject that request',
  },
  TRANSACTION_ALREADY_REVERSED: {
    status: 409,
    message: 'This transaction has already been reversed; a transaction is reversed at most once',
  },
} as const satisfies Record<string, { status: number; message: string }>;
