/** Proofs of customer consent (auth issues, ledger verifies) and OTP proof checks. Never rename or re-status a shipped code; append new ones. */
export const CONSENT_ERRORS = {
  CONSENT_PROOF_REQUIRED: {
    status: 403,
    message:
      "Moving an intent to OTP_VERIFIED or PIN_VERIFIED needs the consent proof auth issued when it checked the customer's code or PIN",
  },
  CONSENT_PROOF_INVALID: { status: 403, message: 'The consent proof is not a valid proof signed by the authentication service' },
  CONSENT_PROOF_EXPIRED: { status: 403, message: 'The consent proof has expired; check the PIN or code again' },
  CONSENT_PROOF_MISMATCH: { status: 403, message: 'The consent proof was issued for another intent, step or user' },
  CONSENT_PROOF_REPLAYED: { status: 403, message: 'The consent proof was already used' },
  CONSENT_OTP_USER_REQUIRED: {
    status: 400,
    message: 'An intent that requires an OTP must name otpUserId (the user the code is sent to); other intents must not',
  },
  CONSENT_OTP_PURPOSE_INVALID: { status: 400, message: 'A consent proof for an intent can only come from a code sent for purpose INTENT' },
} as const satisfies Record<string, { status: number; message: string }>;
