/** Float reconciliation against the trust bank account (`/api/v1/compliance/reconciliation`). Never rename or re-status a shipped code; append new ones. */
export const RECONCILIATION_ERRORS = {
  // Statement import: every refusal leaves the database as it was
  BANK_STATEMENT_DUPLICATE: { status: 409, message: 'This bank statement was already imported; nothing was changed' },
  BANK_STATEMENT_MALFORMED: {
    status: 422,
    message: 'The bank statement could not be read (format, structure, amounts, dates or balances); nothing was imported',
  },
  BANK_STATEMENT_OUT_OF_ORDER: {
    status: 409,
    message:
      "The bank statement does not follow the last one imported for this account (its opening balance is not that statement's closing balance, or it is not dated after it); nothing was imported",
  },
  BANK_STATEMENT_WRONG_CURRENCY: {
    status: 422,
    message: "The bank statement's currency is not the currency of this trust account; nothing was imported",
  },
  BANK_ACCOUNT_NOT_TRUST_ACCOUNT: {
    status: 422,
    message: 'The bank account of this statement is not a configured trust account (LEDGER_TRUST_ACCOUNTS); nothing was imported',
  },
  BANK_STATEMENT_NOT_FOUND: { status: 404, message: 'Bank statement not found' },
  BANK_STATEMENT_DAY_NOT_OVER: {
    status: 422,
    message:
      "The bank statement closes on a day that is not over yet in the trust account's business day (West Africa Time); import it once that day has ended. Nothing was imported",
  },

  // Runs and alerts
  RECONCILIATION_RUN_NOT_FOUND: { status: 404, message: 'Reconciliation run not found' },
  RECONCILIATION_DAY_NOT_OVER: {
    status: 409,
    message: "The statement's closing day is not over yet in the trust account's business day: no run before it has ended",
  },
  RECONCILIATION_ALERT_NOT_FOUND: { status: 404, message: 'Reconciliation alert not found' },
  RECONCILIATION_ALERT_ALREADY_ACKNOWLEDGED: { status: 409, message: 'This reconciliation alert has already been acknowledged' },
  RECONCILIATION_ALERT_NOT_ACKNOWLEDGED: {
    status: 409,
    message: 'A reconciliation alert is acknowledged before it is resolved: acknowledge it first',
  },
  RECONCILIATION_ALERT_ALREADY_RESOLVED: { status: 409, message: 'This reconciliation alert has already been resolved' },
  RECONCILIATION_CORRECTION_NOT_ELIGIBLE: {
    status: 422,
    message:
      'The correction named does not resolve a reconciliation alert: it must exist, be executed, have been approved by someone other than its maker, and be in the currency of the alert',
  },
  RECONCILIATION_CORRECTION_PREDATES_ALERT: {
    status: 422,
    message: 'The correction named was submitted before the alert was raised: it cannot be the fix of that difference',
  },
  RECONCILIATION_CORRECTION_MISMATCH: {
    status: 422,
    message:
      "The correction named does not fix this difference: its effect on the trust account must be the bank line's direction and amount, the opposite of the unmatched movement, or the gap's amount",
  },
  RECONCILIATION_CORRECTION_ALREADY_USED: {
    status: 409,
    message: 'This correction already resolved another reconciliation alert; a correction resolves one alert',
  },
} as const satisfies Record<string, { status: number; message: string }>;
