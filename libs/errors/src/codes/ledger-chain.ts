/** The ledger's hash chain and its verification (`/api/v1/compliance/ledger-chain`). Never rename or re-status a shipped code; append new ones. */
export const LEDGER_CHAIN_ERRORS = {
  LEDGER_CHAIN_VERIFICATION_RUNNING: { status: 409, message: 'A verification of the ledger chain is already running; wait for its result' },
  /** Logged (never answered) by the anchor job when the chain since the previous anchor does not verify: no anchor is written. */
  LEDGER_CHAIN_ANCHOR_REFUSED: {
    status: 409,
    message: 'The ledger chain does not verify since the previous anchor (or that anchor does not); no anchor was written',
  },
} as const satisfies Record<string, { status: number; message: string }>;
