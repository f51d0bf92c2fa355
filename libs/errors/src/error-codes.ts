/**
 * The single list of stable error codes of the platform.
 *
 * A code is part of the public contract: once shipped it is never renamed or given another status.
 * Add new codes at the end of their group. `status` is the HTTP status every service answers with.
 */
export const ERROR_CATALOG = {
  // ---- generic request failures (every service) ----
  VALIDATION_ERROR: { status: 400, message: 'The request is invalid' },
  MALFORMED_JSON: { status: 400, message: 'The request body is not valid JSON' },
  BAD_REQUEST: { status: 400, message: 'The request cannot be processed' },
  UNAUTHORIZED: { status: 401, message: 'Authentication is required' },
  FORBIDDEN: { status: 403, message: 'You are not allowed to do this' },
  NOT_FOUND: { status: 404, message: 'Resource not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed on this route' },
  CONFLICT: { status: 409, message: 'The resource is in a state that does not allow this operation' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported Content-Type' },
  RATE_LIMITED: { status: 429, message: 'Too many requests' },
  INTERNAL_ERROR: { status: 500, message: 'An unexpected error occurred' },
  NOT_IMPLEMENTED: { status: 501, message: 'This operation is not available yet' },
  UPSTREAM_UNAVAILABLE: { status: 502, message: 'An upstream service is unavailable' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'The service is temporarily unavailable' },
  UPSTREAM_TIMEOUT: { status: 504, message: 'An upstream service did not answer in time' },

  // ---- service-to-service ----
  INVALID_SERVICE_CREDENTIALS: { status: 401, message: 'Missing or invalid service credential' },

  // ---- spec 1: partner API ----
  INVALID_INTEGRATION_CREDENTIALS: { status: 401, message: 'Missing, malformed or revoked API key' },
  INTEGRATION_REVOKED: { status: 401, message: 'The integration has been revoked' },
  NO_ACTIVE_CONNECTION: { status: 403, message: 'No active connection to this merchant' },
  MISSING_SCOPE: { status: 403, message: 'The connection lacks the required scope' },
  INVALID_PHONE_FORMAT: { status: 400, message: 'Phone number must be in E.164 format' },
  INVALID_AMOUNT: { status: 400, message: 'Amount must be a positive integer' },
  INVALID_TTL: { status: 400, message: 'ttlSeconds must be at least 60' },
  TTL_TOO_LONG: { status: 400, message: 'ttlSeconds must be at most 900' },
  CONNECTION_NOT_FOUND: { status: 404, message: 'Connection not found' },
  ORDER_NOT_FOUND: { status: 404, message: 'Order not found' },
  INVALID_SCOPE: { status: 400, message: 'Unknown scope' },
  UNSUPPORTED_CURRENCY: { status: 400, message: 'Currency not supported (XAF or XOF)' },

  // ---- spec 2: intents and ledger ----
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

  // ---- spec 3: authentication ----
  INVALID_CREDENTIALS: { status: 401, message: 'Invalid phone or PIN' },
  ACCOUNT_LOCKED: { status: 423, message: 'Too many failed PIN attempts; account temporarily locked' },
  ACCOUNT_HARD_LOCKED: { status: 423, message: 'Account locked; reset the PIN to unlock it' },
  ACCOUNT_DISABLED: { status: 403, message: 'Account disabled' },
  TOKEN_MISSING: { status: 401, message: 'Bearer token required' },
  TOKEN_INVALID: { status: 401, message: 'Invalid token' },
  TOKEN_EXPIRED: { status: 401, message: 'Token expired' },
  TOKEN_REVOKED: { status: 401, message: 'Token revoked' },
  REFRESH_TOKEN_REUSED: { status: 401, message: 'Refresh token reuse detected; session revoked' },
  OTP_INVALID: { status: 400, message: 'Invalid OTP code' },
  OTP_EXPIRED: { status: 400, message: 'OTP code expired or unknown' },
  OTP_ATTEMPTS_EXHAUSTED: { status: 400, message: 'Too many OTP attempts; request a new code' },
  OTP_THROTTLED: { status: 429, message: 'OTP requested too often; retry later' },
  PIN_POLICY_VIOLATION: { status: 400, message: 'PIN does not meet the PIN rules' },
  USER_ALREADY_EXISTS: { status: 409, message: 'A user with this phone already exists' },
  USER_NOT_FOUND: { status: 404, message: 'User not found' },

  // ---- webhooks ----
  WEBHOOK_ENDPOINT_NOT_FOUND: { status: 404, message: 'Webhook endpoint not found' },
  WEBHOOK_EVENT_NOT_FOUND: { status: 404, message: 'Webhook event not found' },
  INVALID_WEBHOOK_URL: { status: 400, message: 'Webhook URL must be an absolute http(s) URL' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOG, value);
}

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOG[code].status;
}
