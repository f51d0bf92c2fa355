/** The ledger's hash chain and its verification (`/api/v1/compliance/ledger-chain`). Never rename or re-status a shipped code; append new ones. */
export const LEDGER_CHAIN_ERRORS = {
  LEDGER_CHAIN_VERIFICATION_RUNNING: { status: 409, message: 'A verification of the ledger chain is already running; wait for its result' },
} as const satisfies Record<string, { status: number; message: string }>;
