/** Staff sign-in (docs/operators.md "Signing in"): the second factor. Never rename or re-status a shipped code; append new ones. */
export const STAFF_AUTH_ERRORS = {
  SECOND_FACTOR_INVALID: {
    status: 401,
    message: 'Wrong second-factor code; wrong codes count toward the account lock like wrong PINs',
  },
  SECOND_FACTOR_CODE_USED: {
    status: 401,
    message: 'This code (or a later one) was already used to sign in: wait for the next code of the authenticator app',
  },
  SECOND_FACTOR_CHALLENGE_INVALID: {
    status: 401,
    message: 'Sign-in challenge unknown, expired or already used: sign in again with phone and PIN',
  },
  SECOND_FACTOR_SMS_CODE_INVALID: {
    status: 401,
    message: 'Wrong SMS code for this enrolment; wrong codes count toward the account lock like wrong PINs',
  },
  SECOND_FACTOR_SMS_CODE_EXPIRED: {
    status: 401,
    message: "This enrolment's SMS code expired or was used up by wrong tries: sign in again with phone and PIN for a new one",
  },
} as const satisfies Record<string, { status: number; message: string }>;
