/** Spec 1: partner API. Never rename or re-status a shipped code; append new ones. */
export const PARTNERS_ERRORS = {
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
} as const satisfies Record<string, { status: number; message: string }>;
