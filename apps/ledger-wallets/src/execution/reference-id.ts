import { randomInt } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * `transactions.reference_id` (docs/ledger.md "Transactions and entries"): three-letter platform
 * prefix, `TX`, the UTC date as YYMMDD, then 7 random characters (36^7 ≈ 7.8e10 per day; a
 * collision is caught by the unique constraint and the transaction replayed with a fresh
 * reference).
 */
export function newReferenceId(prefix: string, at: Date = new Date()): string {
  const yymmdd = at.toISOString().slice(2, 10).replace(/-/g, '');
  let tail = '';
  for (let i = 0; i < 7; i++) tail += ALPHABET[randomInt(ALPHABET.length)];
  return `${prefix}TX${yymmdd}${tail}`;
}

export const REFERENCE_ID_PATTERN = /^[A-Z]{3}TX\d{6}[A-Z0-9]{7}$/;
