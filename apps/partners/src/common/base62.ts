import { randomBytes } from 'node:crypto';

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * `length` characters drawn uniformly from the 62 alphanumerics (rejection sampling: bytes ≥ 248
 * are dropped so that no character is more likely than another). Each character carries
 * log2(62) ≈ 5.95 bits: 43 characters ≈ 256 bits.
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A non-negative integer in base 62, left-padded with '0' to `width`. */
export function encodeBase62(value: number, width: number): string {
  let out = '';
  let n = Math.floor(value);
  do {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out.padStart(width, '0');
}
