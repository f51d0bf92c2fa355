import { SERVICES } from './services';

/**
 * Proof of the customer's consent to an intent step (docs/ledger.md "Consent proofs").
 *
 * Why it exists: the ledger's transition endpoint is reachable with the internal service key. Without
 * this proof, whoever holds that key could walk any customer's intent to PIN_VERIFIED and on to
 * SUCCEEDED. With it, the ledger moves an intent to OTP_VERIFIED / PIN_VERIFIED only when auth has
 * just checked that customer's OTP or PIN for that very intent and step.
 *
 * ## Flow (what the orchestrator does)
 *
 * 1. Intent creation (`POST /v1/internal/intents` on the ledger): `actor.id` is the initiator's auth
 *    user id (the `sub` of their access token). When `requiresOtp` is true the body also carries
 *    `otpUserId`: the auth user id of the customer the OTP will be sent to (required then, refused
 *    otherwise). The ledger stores both; they are the only users whose proofs it accepts.
 * 2. OTP step: `POST /auth/verify-otp` with `{ phone, purpose: 'INTENT', otp, intentId }`. On success
 *    auth answers the usual OTP proof plus `consentProof` / `consentProofExpiresAt`. The orchestrator
 *    then calls the ledger transition `{ toStatus: 'OTP_VERIFIED', actor, consentProof }`.
 * 3. PIN step: `POST /auth/check-pin` (the initiator's own bearer token) with `{ pin, intentId }`. On
 *    success: `{ valid: true, consentProof, consentProofExpiresAt }`. Then the ledger transition
 *    `{ toStatus: 'PIN_VERIFIED', actor, consentProof }`.
 * 4. Confirm (`toStatus: 'SUCCEEDED'`) needs no proof: the intent can only be in PIN_VERIFIED if a
 *    PIN proof was redeemed.
 *
 * Without `intentId`, check-pin and verify-otp behave exactly as before and issue no proof.
 *
 * ## The proof
 *
 * A JWT signed by auth's Ed25519 key (the key of its JWKS, `GET /auth/.well-known/jwks.json`), header
 * `{ alg: 'EdDSA', typ: 'consent+jwt', kid }`. Its own `typ` and audience mean an access token never
 * passes as a proof and a proof never passes as an access token. Claims: {@link ConsentProofClaims}.
 * It is short-lived (auth's `CONSENT_PROOF_TTL_SEC`, 120 s by default) and single use: the ledger
 * stores its `jti` in the same database transaction as the move, so a second redemption is refused.
 *
 * ## Ledger answers (all 403, the intent stays where it was, no event row is written)
 *
 * - `CONSENT_PROOF_REQUIRED`: no `consentProof` on a move to OTP_VERIFIED / PIN_VERIFIED.
 * - `CONSENT_PROOF_INVALID`: not a proof signed by auth (bad signature, wrong `typ`/issuer/audience,
 *   an access token, malformed claims).
 * - `CONSENT_PROOF_EXPIRED`: past its `exp`; check the PIN / OTP again to get a new one.
 * - `CONSENT_PROOF_MISMATCH`: a genuine proof, but for another intent, another step (an OTP proof
 *   for PIN_VERIFIED or the reverse) or another user (not the initiator for PIN, not `otpUserId` for OTP).
 * - `CONSENT_PROOF_REPLAYED`: this proof was already redeemed.
 *
 * A replay of the whole transition with the same `X-Idempotency-Key` and body answers the stored
 * response (the proof is not part of the request hash), as every idempotent replay does.
 */

/** The two steps of an intent that need the customer's consent. */
export const CONSENT_STEPS = ['PIN', 'OTP'] as const;
export type ConsentStep = (typeof CONSENT_STEPS)[number];

/** The intent status each step's proof lets the ledger move to. */
export const CONSENT_STEP_TARGET = { PIN: 'PIN_VERIFIED', OTP: 'OTP_VERIFIED' } as const satisfies Record<ConsentStep, string>;

/** JWT header `typ` of a consent proof (access tokens are `at+jwt`). */
export const CONSENT_PROOF_TYP = 'consent+jwt';

/** JWT `aud` of a consent proof: only the ledger redeems it. */
export const CONSENT_PROOF_AUDIENCE = 'mm-ledger';

/** Default JWT `iss` of everything auth signs (auth's `JWT_ISSUER`, the ledger's `LEDGER_CONSENT_ISSUER`). */
export const AUTH_TOKEN_ISSUER = 'mm-auth';

/** Default lifetime of a proof, in seconds (auth's `CONSENT_PROOF_TTL_SEC`). */
export const CONSENT_PROOF_DEFAULT_TTL_SEC = 120;

/** Path of auth's public key set, relative to auth's base URL. */
export const AUTH_JWKS_PATH = '/auth/.well-known/jwks.json';

/** Auth's base URL on a local run (`npm start` and tests override it with `AUTH_URL`). */
export const DEFAULT_AUTH_URL = `http://127.0.0.1:${SERVICES.auth.port}`;

/** The claims of a consent proof. */
export interface ConsentProofClaims {
  /** auth user id whose PIN or OTP was checked */
  sub: string;
  /** the intent the customer consented to (ledger intent id, UUID) */
  intent_id: string;
  /** which check was passed */
  step: ConsentStep;
  /** unique id (UUID); the ledger redeems each one once */
  jti: string;
  iss: string;
  aud: string;
  /** seconds since epoch */
  iat: number;
  exp: number;
}

/** Extra request fields of auth's `POST /auth/check-pin` and `POST /auth/verify-otp` (purpose `INTENT` only). */
export interface ConsentCheckRequest {
  /** ask for a consent proof bound to this intent (UUID) */
  intentId?: string;
}

/** Extra answer fields of check-pin / verify-otp when `intentId` was given. */
export interface ConsentProofAnswer {
  /** the JWT to pass as `consentProof` to the ledger transition */
  consentProof: string;
  /** ISO 8601: redeem before this */
  consentProofExpiresAt: string;
}

/** Extra fields of the ledger's intent creation and transition bodies. */
export interface ConsentLedgerFields {
  /** creation, when `requiresOtp` is true: auth user id of the customer who receives the OTP */
  otpUserId?: string;
  /** transition to OTP_VERIFIED / PIN_VERIFIED: the proof from auth */
  consentProof?: string;
}
