import { createHash } from 'node:crypto';

/** Secrets never take part in the request hash (docs/ledger.md "Idempotency"). */
const SECRET_FIELDS = new Set(['pin', 'oldpin', 'newpin', 'otp', 'otpcode', 'password', 'secret', 'token']);

/** Volatile fields: two retries of one request differ only in these. */
const VOLATILE_FIELDS = new Set(['timestamp', 'requestedat', 'sentat', 'createdat', 'updatedat', 'clienttimestamp']);

function dropped(key: string): boolean {
  const k = key.toLowerCase().replace(/[_-]/g, '');
  return SECRET_FIELDS.has(k) || VOLATILE_FIELDS.has(k);
}

/**
 * Canonical JSON of a request body: object keys sorted alphabetically at every depth, secret and
 * volatile fields removed, `undefined` members left out (as JSON.stringify would).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([k, v]) => v !== undefined && !dropped(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** SHA-256 (hex) of the canonical form: the request hash stored beside an idempotency key. */
export function requestHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
