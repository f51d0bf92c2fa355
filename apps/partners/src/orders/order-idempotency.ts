import { createHash } from 'node:crypto';
import { AppException } from '@mm/errors';

/** Printable ASCII without spaces, 1 to 255 characters (a UUID v4 is the recommended value). */
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

export function checkIdempotencyKey(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !KEY_SHAPE.test(raw)) {
    const message = 'Idempotency-Key must be 1 to 255 printable ASCII characters without spaces';
    throw new AppException('VALIDATION_ERROR', message, {
      errors: [{ field: 'Idempotency-Key', code: 'INVALID_IDEMPOTENCY_KEY', message }],
    });
  }
  return raw;
}

/** Canonical JSON (keys sorted at every level, undefined dropped): two bodies with the same fields hash alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Hash of the request as the client sent it (field order and whitespace do not matter, values do). */
export function requestHash(body: object): Buffer {
  return createHash('sha256').update(canonical(body)).digest();
}
