/** Merchant and partner settlement statements (docs/statements.md). Never rename or re-status a shipped code; append new ones. */
export const SETTLEMENT_STATEMENTS_ERRORS = {
  SETTLEMENT_PERIOD_INVALID: {
    status: 400,
    message: 'The statement period is not valid: give a day, or a from and to date no more than the allowed span apart',
  },
  SETTLEMENT_FORMAT_INVALID: { status: 400, message: 'The statement format must be json or csv' },
  SETTLEMENT_CURRENCY_UNAVAILABLE: { status: 404, message: 'The merchant has no account in this currency' },
  SETTLEMENT_STATEMENT_TOO_LARGE: {
    status: 422,
    message: 'The period holds more ledger entries than one statement may list: ask for a shorter period',
  },
  SETTLEMENT_PERIOD_TOO_OLD: {
    status: 400,
    message: 'The statement period starts further back than statements go: ask for a more recent period',
  },
  SETTLEMENT_PERIOD_BEFORE_CONNECTION: {
    status: 403,
    message: 'The period ends before your connection to the merchant was activated: a partner sees the account only from then on',
  },
  SETTLEMENT_STATEMENT_TIMEOUT: {
    status: 503,
    message: 'The statement took longer to read than allowed and was abandoned (nothing changed): ask for a shorter period, or later',
  },
  SETTLEMENT_LIVE_KEY_REQUIRED: {
    status: 403,
    message: 'A statement shows real money: ask with a live-mode key (test mode moves no money)',
  },
} as const satisfies Record<string, { status: number; message: string }>;
