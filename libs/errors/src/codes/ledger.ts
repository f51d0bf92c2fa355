/** Spec 2: intents and ledger. Never rename or re-status a shipped code; append new ones. */
export const LEDGER_ERRORS = {
  INSUFFICIENT_BALANCE: { status: 422, message: 'Insufficient available balance' },
  CONCURRENCY_CONFLICT: { status: 409, message: 'Concurrent update conflict, retry later' },
  IDEMPOTENCY_KEY_CONFLICT: { status: 422, message: 'Idempotency key reused with a different request' },
  IDEMPOTENCY_KEY_MISSING: { status: 400, message: 'Idempotency key is required' },
  IDEMPOTENCY_KEY_IN_PROGRESS: { status: 409, message: 'A request with this idempotency key is still running' },
  LEDGER_INTEGRITY_VIOLATION: { status: 500, message: 'Ledger integrity violation' },
  INVALID_INTENT_TRANSITION: { status: 400, message: 'Invalid intent transition' },
  INTENT_NOT_FOUND: { status: 404, message: 'Intent not found' },
  INTENT_EXPIRED: { status: 400, message: 'Intent has expired' },
  WALLET_NOT_FOUND: { status: 404, message: 'Wallet not found' },
  ACCOUNT_NOT_FOUND: { status: 404, message: 'Account not found' },
  CURRENCY_MISMATCH: { status: 400, message: 'Accounts and amount must share one currency' },
  QR_TOKEN_LOCKED: { status: 409, message: 'This QR code is already in use by another active intent' },
  TRANSACTION_NOT_FOUND: { status: 404, message: 'Transaction not found' },
} as const satisfies Record<string, { status: number; message: string }>;
