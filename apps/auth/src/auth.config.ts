import { AUTH_TOKEN_ISSUER, CONSENT_PROOF_DEFAULT_TTL_SEC, DEFAULT_DATABASE_NAME, SERVICES } from '@mm/contracts';
import { ConfigRule, DatabaseConfig, EnvBoolean, totpSecretProblem } from '@mm/platform';
import { IsBoolean, IsIn, IsInt, IsString, Max, Min, MinLength } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { publishedKeyProblem } from './crypto/auth-secrets';

/**
 * Auth settings. Secrets (pepper, OTP key, signing key) have no default: development and test
 * fall back to keys shared by the replicas through Redis or a clearly-marked development value with a
 * warning (crypto/shared-dev-keys.ts), production refuses
 * to start without them (see `assertProductionSecrets`).
 */
export class AuthConfig extends DatabaseConfig {
  override PORT = SERVICES['auth'].port;
  override DATABASE_URL = `postgres://${SERVICES['auth'].role}@127.0.0.1:5432/${DEFAULT_DATABASE_NAME}`;

  // --- PIN hashing (scrypt, see crypto/pin-hasher.service.ts) ---
  /** Server-side secret mixed into every PIN hash (HMAC before scrypt); a stolen table alone cannot be brute-forced. */
  @OptionalField()
  @IsString()
  @MinLength(32, { message: 'PIN_PEPPER must be at least 32 characters' })
  PIN_PEPPER?: string;

  /** scrypt cost N = 2^PIN_SCRYPT_LOG_N; memory per hash = 128·N·r bytes (2 MiB with the defaults). */
  @IsInt()
  @Min(10)
  @Max(20)
  PIN_SCRYPT_LOG_N: number = 11;

  @IsInt()
  @Min(1)
  @Max(32)
  PIN_SCRYPT_R: number = 8;

  @IsInt()
  @Min(1)
  @Max(16)
  PIN_SCRYPT_P: number = 1;

  /**
   * Hashes running at once (0 = one per CPU core, at most 3). Kept below libuv's 4 threads so that
   * token signing and verification (WebCrypto, also on that pool) never queue behind PIN hashes.
   */
  @IsInt()
  @Min(0)
  @Max(64)
  PIN_HASH_CONCURRENCY: number = 0;

  // --- lockout ---
  @IsInt()
  @Min(1)
  PIN_LOCK_THRESHOLD: number = 5;

  @IsInt()
  @Min(2)
  PIN_HARD_LOCK_THRESHOLD: number = 10;

  /** First temporary lock; each further failure while past the threshold doubles it. */
  @IsInt()
  @Min(1)
  PIN_LOCK_BASE_SEC: number = 900;

  // --- tokens ---
  /** PKCS#8 PEM of an Ed25519 private key (`\n` escapes accepted). */
  @OptionalField()
  @IsString()
  JWT_PRIVATE_KEY?: string;

  @OptionalField()
  @IsString()
  JWT_KEY_ID?: string;

  /**
   * Key rotation (docs/auth-limits.md): the public half (SPKI PEM; a private PEM is accepted, only its
   * public half is used) of the key that will sign next, published in the JWKS before it signs
   * anything, and of the key that signed before, published until its last tokens have expired.
   * Neither ever signs. Kids default to the same digest as JWT_KEY_ID's, so a key keeps its kid
   * whichever slot it is in.
   */
  @OptionalField()
  @IsString()
  // an Ed25519 key whose kid no other configured key has
  @ConfigRule<AuthConfig>('publishedKey', (_value, config) => publishedKeyProblem(config, 'next'))
  JWT_NEXT_PUBLIC_KEY?: string;

  @OptionalField()
  @IsString()
  JWT_NEXT_KEY_ID?: string;

  @OptionalField()
  @IsString()
  @ConfigRule<AuthConfig>('publishedKey', (_value, config) => publishedKeyProblem(config, 'previous'))
  JWT_PREVIOUS_PUBLIC_KEY?: string;

  @OptionalField()
  @IsString()
  JWT_PREVIOUS_KEY_ID?: string;

  @IsString()
  JWT_ISSUER: string = AUTH_TOKEN_ISSUER;

  @IsString()
  JWT_AUDIENCE: string = 'mm-platform';

  @IsInt()
  @Min(10)
  @Max(900, { message: 'ACCESS_TOKEN_TTL_SEC must be at most 900 (15 minutes)' })
  ACCESS_TOKEN_TTL_SEC: number = 900;

  @IsInt()
  @Min(60)
  REFRESH_TOKEN_TTL_SEC: number = 30 * 24 * 3600;

  // --- staff sign-in (second-factor/, docs/auth-limits.md "Staff sign-in") ---
  /** Access tokens of staff roles (SUPPORT, COMPLIANCE, ADMIN, AUDITOR): shorter than a customer's. */
  @IsInt()
  @Min(10)
  @Max(900, { message: 'STAFF_ACCESS_TOKEN_TTL_SEC must be at most 900 (15 minutes)' })
  STAFF_ACCESS_TOKEN_TTL_SEC: number = 300;

  /** A staff session (its refresh tokens) ends this long after the sign-in, refreshed or not: a working day. */
  @IsInt()
  @Min(60)
  STAFF_SESSION_TTL_SEC: number = 8 * 3600;

  /** How long the second step of a staff login may wait for its code (the challenge token's life). */
  @IsInt()
  @Min(1)
  @Max(900)
  SECOND_FACTOR_CHALLENGE_TTL_SEC: number = 300;

  /**
   * Encrypts the staff TOTP secrets at rest (AES-256-GCM under its SHA-256). Changing it makes every
   * enrolment unreadable: staff then fail their second step until an administrator resets it.
   */
  @OptionalField()
  @IsString()
  @MinLength(32, { message: 'TOTP_ENCRYPTION_KEY must be at least 32 characters' })
  TOTP_ENCRYPTION_KEY?: string;

  /**
   * A used refresh token presented again within this many seconds of its use, while its successor
   * is still unused, answers the pair its first use issued (a mobile app retrying after a lost
   * answer) instead of revoking the session. 0 turns the grace off: every reuse revokes.
   */
  @IsInt()
  @Min(0)
  @Max(60, { message: 'REFRESH_GRACE_SEC must be at most 60' })
  REFRESH_GRACE_SEC: number = 10;

  /**
   * Lifetime of a consent proof (check-pin / verify-otp with an intentId). Long enough for the
   * orchestrator's next call to the ledger, short enough that a leaked proof is soon worthless.
   */
  @IsInt()
  @Min(10)
  @Max(600, { message: 'CONSENT_PROOF_TTL_SEC must be at most 600 (10 minutes)' })
  CONSENT_PROOF_TTL_SEC: number = CONSENT_PROOF_DEFAULT_TTL_SEC;

  // --- OTP ---
  /** HMAC key of stored OTP codes and of verification proofs. */
  @OptionalField()
  @IsString()
  @MinLength(32, { message: 'OTP_HMAC_KEY must be at least 32 characters' })
  OTP_HMAC_KEY?: string;

  @IsInt()
  @Min(1)
  OTP_TTL_SEC: number = 300;

  @IsInt()
  @Min(1)
  @Max(10)
  OTP_MAX_ATTEMPTS: number = 5;

  @IsInt()
  @Min(0)
  OTP_RESEND_COOLDOWN_SEC: number = 60;

  @IsInt()
  @Min(1)
  OTP_MAX_PER_PHONE_PER_HOUR: number = 5;

  @IsInt()
  @Min(1)
  OTP_MAX_PER_IP_PER_HOUR: number = 30;

  /**
   * Anti-enumeration floor of the code-sending routes (send-otp, reset-pin/request): no answer,
   * success or error, leaves sooner than this after the route began its work, account or not. Only
   * an account costs work (the code's database write; the SMS is handed to the provider without the
   * answer waiting for it, see OtpService.send), so without the floor the response time would tell
   * the two apart. The default sits above that write even on a busy database (a few ms, tens under
   * load) and above a usual provider round trip (100-300 ms), so most SMS have been handed over
   * before the answer leaves; someone waiting for an SMS does not notice 0.4 s.
   */
  @IsInt()
  @Min(0)
  @Max(5_000)
  OTP_SEND_MIN_MS: number = 400;

  /** How long the proof returned by a successful OTP verification may be redeemed (PIN reset). */
  @IsInt()
  @Min(1)
  OTP_PROOF_TTL_SEC: number = 600;

  /**
   * How long a code's row is kept after the code expired (used or not; stand-in codes too). Nothing
   * reads a row once its code has expired and its proof window (OTP_PROOF_TTL_SEC from its use,
   * which comes before its expiry) has closed; the rows in between only help to look into a
   * complaint or an abuse report. The clean-up (AuthCleanup) deletes the older ones.
   */
  @IsInt()
  @Min(3_600)
  @ConfigRule<AuthConfig>('otpRetention', (value, config) =>
    typeof value === 'number' && value < config.OTP_PROOF_TTL_SEC ? 'must be at least OTP_PROOF_TTL_SEC' : undefined,
  )
  OTP_RETENTION_SEC: number = 7 * 24 * 3600;

  /** How often the clean-up (old code rows, forgotten unknown-phone lockout counters) runs, in ms; 0 turns its timer off. */
  @IsInt()
  @Min(0)
  // setInterval's largest delay: above it Node fires every millisecond instead
  @Max(2_147_483_647)
  OTP_CLEANUP_INTERVAL_MS: number = 3_600_000;

  // --- abuse limits (rate-limit/, docs/auth-limits.md) ---
  // Fixed windows in Redis, every attempt counted before any work (a login costs a scrypt). Per
  // phone and per client address, each refused with 429 RATE_LIMITED and Retry-After; 0 turns one
  // limit off. They come on top of the per-account PIN lockout and the OTP resend throttles above.
  // Per-address numbers are higher than per-phone ones: carrier-grade NAT puts many customers
  // behind one address.

  /** POST /auth/login and /auth/login/phone-pin. */
  @IsInt()
  @Min(0)
  LOGIN_LIMIT_PER_PHONE: number = 10;

  @IsInt()
  @Min(0)
  LOGIN_LIMIT_PER_IP: number = 30;

  @IsInt()
  @Min(1)
  @Max(86_400)
  LOGIN_LIMIT_WINDOW_SEC: number = 60;

  /** Codes sent: POST /auth/send-otp and /auth/reset-pin/request, every purpose in one count. */
  @IsInt()
  @Min(0)
  OTP_SEND_LIMIT_PER_PHONE: number = 3;

  @IsInt()
  @Min(0)
  OTP_SEND_LIMIT_PER_IP: number = 10;

  @IsInt()
  @Min(1)
  @Max(86_400)
  OTP_SEND_LIMIT_WINDOW_SEC: number = 600;

  /** Codes checked: POST /auth/verify-otp, /auth/reset-pin/verify-otp and /auth/reset-pin/confirm. */
  @IsInt()
  @Min(0)
  OTP_VERIFY_LIMIT_PER_PHONE: number = 10;

  @IsInt()
  @Min(0)
  OTP_VERIFY_LIMIT_PER_IP: number = 30;

  @IsInt()
  @Min(1)
  @Max(86_400)
  OTP_VERIFY_LIMIT_WINDOW_SEC: number = 600;

  /** Take the client IP from the last X-Forwarded-For entry (set true only behind the gateway). */
  @EnvBoolean()
  @IsBoolean()
  TRUST_FORWARDED_FOR: boolean = false;

  // --- SMS ---
  @IsIn(['dev', 'http'])
  SMS_DRIVER: 'dev' | 'http' = 'dev';

  @OptionalField()
  @IsString()
  SMS_PROVIDER_URL?: string;

  @OptionalField()
  @IsString()
  SMS_PROVIDER_TOKEN?: string;

  @IsInt()
  @Min(100)
  SMS_PROVIDER_TIMEOUT_MS: number = 5_000;

  // --- bootstrap administrator ---
  @OptionalField()
  @IsString()
  BOOTSTRAP_ADMIN_PHONE?: string;

  @OptionalField()
  @IsString()
  BOOTSTRAP_ADMIN_PIN?: string;

  /**
   * The bootstrap administrator's TOTP secret (base32, at least 128 bits): when set, that
   * administrator is enrolled with it in the step that creates it, never at a later start (a reset
   * stays reset). When not set, the administrator enrols at the first sign-in like any staff member.
   */
  @OptionalField()
  @IsString()
  @ConfigRule<AuthConfig>('totpSecret', (value) => totpSecretProblem(value))
  BOOTSTRAP_ADMIN_TOTP_SECRET?: string;
}

/** Production never runs on generated or development secrets. */
export function assertProductionSecrets(config: AuthConfig): void {
  if (config.NODE_ENV !== 'production') return;
  const missing = (['PIN_PEPPER', 'OTP_HMAC_KEY', 'JWT_PRIVATE_KEY', 'TOTP_ENCRYPTION_KEY'] as const).filter((k) => !config[k]);
  if (config.SMS_DRIVER !== 'http') missing.push('SMS_DRIVER=http' as never);
  if (config.SMS_DRIVER === 'http' && !config.SMS_PROVIDER_URL) missing.push('SMS_PROVIDER_URL' as never);
  if (missing.length > 0) throw new Error(`Invalid configuration: production requires ${missing.join(', ')}`);
}
