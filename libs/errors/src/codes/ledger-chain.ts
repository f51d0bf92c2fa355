/** The ledger's hash chain and its verification (`/api/v1/compliance/ledger-chain`). Never rename or re-status a shipped code; append new ones. */
export const LEDGER_CHAIN_ERRORS = {
  LEDGER_CHAIN_VERIFICATION_RUNNING: { status: 409, message: 'A verification of the ledger chain is already running; wait for its result' },
  /** Logged (never answered) by the anchor job when the chain since the previous anchor does not verify: no anchor is written. */
  LEDGER_CHAIN_ANCHOR_REFUSED: {
    status: 409,
    message: 'The ledger chain does not verify since the previous anchor (or that anchor does not); no anchor was written',
  },
  /** The ledger has no anchor with that number (or none at all yet): asked by the orchestrator's witness. */
  LEDGER_CHAIN_ANCHOR_NOT_FOUND: { status: 404, message: 'The ledger has no such chain anchor' },
  /** Logged (never answered) by the orchestrator's witness when the ledger's anchors fall behind or differ from the ones it witnessed. */
  LEDGER_CHAIN_ANCHOR_ROLLED_BACK: {
    status: 409,
    message: 'The ledger no longer holds a chain anchor the orchestrator witnessed, or holds it with another MAC',
  },
} as const satisfies Record<string, { status: number; message: string }>;
