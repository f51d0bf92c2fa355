/** Authentication (docs/mobile-api.md "Accounts and tokens"). Never rename or re-status a shipped code; append new ones. */
export const AUTH_ERRORS = {
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
  INVALID_PIN: { status: 403, message: 'Incorrect PIN' },
  RESET_TOKEN_INVALID: { status: 400, message: 'PIN reset token invalid, expired or already used' },
  OTP_PURPOSE_NOT_ALLOWED: {
    status: 403,
    message:
      "Codes for purpose INTENT are sent and checked only through the intent's own steps (POST /api/v1/intents/:id/send-otp and verify-otp)",
  },
  PIN_CHECK_IN_PROGRESS: {
    status: 429,
    message: 'Other PIN checks on this account are still running; retry in a second',
  },
} as const satisfies Record<string, { status: number; message: string }>;
