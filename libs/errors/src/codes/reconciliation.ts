/** Float reconciliation against the trust bank account (`/api/v1/compliance/reconciliation`). Never rename or re-status a shipped code; append new ones. */
export const RECONCILIATION_ERRORS = {
  BANK_STATEMENT_DUPLICATE: { status: 409, message: 'This bank statement was already imported; nothing was changed' },
} as const satisfies Record<string, { status: number; message: string }>;
