/** Merchant and partner settlement statements. Never rename or re-status a shipped code; append new ones. */
export const SETTLEMENT_STATEMENTS_ERRORS = {
  SETTLEMENT_PERIOD_INVALID: {
    status: 400,
    message: 'The statement period is not valid: give a day, or a from and to date no more than the allowed span apart',
  },
} as const satisfies Record<string, { status: number; message: string }>;
