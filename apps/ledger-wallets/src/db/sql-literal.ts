import { escapeLiteral } from 'pg';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A value written into SQL text, for the few statements the money path batches with COMMIT or
 * BEGIN in one simple-query round trip (the simple protocol takes no parameters). Strings go
 * through pg's escapeLiteral; numbers must be safe integers; anything else is refused.
 */
export function lit(value: string | number | boolean | Date | null | undefined): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`not a safe integer: ${value}`);
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return `'${value.toISOString()}'::timestamptz`;
  // escapeLiteral walks the string a character at a time; without a quote or a backslash its answer
  // is the string in quotes, so that case (ids, ISO dates, most JSON) skips the walk.
  return NEEDS_ESCAPE.test(value) ? escapeLiteral(value) : `'${value}'`;
}

const NEEDS_ESCAPE = /['\\]/;

/** A UUID literal, checked by shape first (ids reach here already validated; this is the second guard). */
export function uuidLit(value: string): string {
  if (!UUID.test(value)) throw new Error(`not a UUID: ${value}`);
  return `'${value.toLowerCase()}'::uuid`;
}

export function uuidArrayLit(values: string[]): string {
  for (const v of values) if (!UUID.test(v)) throw new Error(`not a UUID: ${v}`);
  return `'{${values.map((v) => v.toLowerCase()).join(',')}}'::uuid[]`;
}
