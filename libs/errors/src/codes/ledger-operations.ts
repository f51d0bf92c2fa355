/** Staff ledger operations: named holds (ledger) and the back-office ledger routes (`/api/backoffice/ledger`). Never rename or re-status a shipped code; append new ones. */
export const LEDGER_OPERATIONS_ERRORS = {
  HOLD_NOT_FOUND: { status: 404, message: 'Hold not found' },
  HOLD_ALREADY_RELEASED: { status: 409, message: 'This hold has already been released' },
  AGENT_FLOAT_NOT_FOUND: { status: 422, message: 'The agent has no float account in this currency (registration not finished?)' },
  HOLD_MISMATCH: { status: 422, message: "The request's account, amount or currency are not the hold's (the ledger's record wins)" },
} as const satisfies Record<string, { status: number; message: string }>;
