import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * TOTP (RFC 6238 over RFC 4226's HOTP), as every authenticator app computes it by default:
 * HMAC-SHA1, 30-second steps counted from the Unix epoch, 6 digits. Pure functions, no state, no
 * import but node:crypto, so that auth (which checks staff codes), the tools and the test harnesses
 * (which compute them, importing this file alone: tools/staff-sign-in.ts) share the one
 * implementation. tools/totp.mjs is the exception, for a reason given there.
 */

export const TOTP_STEP_SEC = 30;
/** The name authenticator apps show next to the account. */
export const TOTP_ISSUER = 'Mobile Money';
export const TOTP_DIGITS = 6;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding (how authenticator apps take a secret). */
export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Base32 to bytes; spaces, dashes, padding and lower case are accepted. Undefined when not base32. */
export function base32Decode(text: string): Buffer | undefined {
  const clean = text.replace(/[\s-]/g, '').replace(/=+$/, '').toUpperCase();
  if (clean.length === 0 || !/^[A-Z2-7]+$/.test(clean)) return undefined;
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of clean) {
    value = (value << 5) | BASE32.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** HOTP (RFC 4226): the code of one counter value, `digits` long, zero-padded. */
export function hotp(secret: Buffer, counter: number, digits = TOTP_DIGITS, algorithm: 'sha1' | 'sha256' | 'sha512' = 'sha1'): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, secret).update(message).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The time step a moment falls in. */
export function totpStep(atMs: number = Date.now()): number {
  return Math.floor(atMs / 1000 / TOTP_STEP_SEC);
}

/** The code of a time step. */
export function totpCode(secret: Buffer, step: number): string {
  return hotp(secret, step);
}

/**
 * The step within `window` steps of now (before or after) whose code is `code`, or undefined. Every
 * step of the window is computed and compared in constant time, so the answer's timing does not
 * tell which step matched.
 */
export function matchTotp(secret: Buffer, code: string, atMs: number = Date.now(), window = 1): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const now = totpStep(atMs);
  const given = Buffer.from(code);
  let found: number | undefined;
  for (let step = now - window; step <= now + window; step++) {
    if (timingSafeEqual(Buffer.from(totpCode(secret, step)), given) && found === undefined) found = step;
  }
  return found;
}

/** The otpauth:// URI authenticator apps read from a QR code (Key Uri Format). */
export function otpauthUri(secret: string, account: string, issuer: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({ secret, issuer, algorithm: 'SHA1', digits: String(TOTP_DIGITS), period: String(TOTP_STEP_SEC) });
  return `otpauth://totp/${label}?${query.toString()}`;
}

/** RFC 4226 asks for at least 128 bits of secret. */
const MIN_SECRET_BYTES = 16;

/** What is wrong with a configured TOTP secret (BOOTSTRAP_ADMIN_TOTP_SECRET), if anything. */
export function totpSecretProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const bytes = base32Decode(value);
  if (!bytes) return 'must be base32 (A-Z, 2-7)';
  if (bytes.length < MIN_SECRET_BYTES) return `must hold at least ${MIN_SECRET_BYTES * 8} bits (26 base32 characters)`;
  return undefined;
}
