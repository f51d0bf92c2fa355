import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { PartnerMode } from '@mm/contracts';
import { encodeBase62, randomBase62 } from '../common/base62';

/**
 * API keys look like Stripe's and GitHub's: a readable prefix telling the mode, 43 random base62
 * characters (≈ 256 bits, far beyond guessing), and a 6-character CRC32 checksum of everything
 * before it. The checksum lets a mistyped, truncated or made-up key be refused without touching the
 * database, and lets secret scanners recognise a real key. Only the SHA-256 of a key is stored: a
 * key this random needs no slow hash, and a copy of the table gives nobody a usable key.
 */
export const API_KEY_PREFIXES: Record<PartnerMode, string> = { live: 'svc_sk_live_', test: 'svc_sk_test_' };

const RANDOM_CHARS = 43;
const CHECKSUM_CHARS = 6;
const KEY_SHAPE = /^svc_sk_(live|test)_([0-9A-Za-z]{49})$/;

export interface GeneratedApiKey {
  key: string;
  hash: Buffer;
  last4: string;
}

export interface ParsedApiKey {
  mode: PartnerMode;
  hash: Buffer;
}

function checksum(body: string): string {
  return encodeBase62(crc32(body), CHECKSUM_CHARS);
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export function generateApiKey(mode: PartnerMode): GeneratedApiKey {
  const body = API_KEY_PREFIXES[mode] + randomBase62(RANDOM_CHARS);
  const key = body + checksum(body);
  return { key, hash: hashApiKey(key), last4: key.slice(-4) };
}

/** The key's mode and hash when its shape and checksum are right; null otherwise (no lookup needed). */
export function parseApiKey(raw: string): ParsedApiKey | null {
  const match = KEY_SHAPE.exec(raw);
  if (!match) return null;
  const body = raw.slice(0, raw.length - CHECKSUM_CHARS);
  if (checksum(body) !== raw.slice(-CHECKSUM_CHARS)) return null;
  return { mode: match[1] as PartnerMode, hash: hashApiKey(raw) };
}

/** What an operator may see of a key: its prefix and last four characters. */
export function keyHint(mode: PartnerMode, last4: string): string {
  return `${API_KEY_PREFIXES[mode]}…${last4}`;
}
