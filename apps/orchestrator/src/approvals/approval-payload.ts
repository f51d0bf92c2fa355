import { AppException, type FieldError } from '@mm/errors';
import { isUuid } from '@mm/platform';

/**
 * Reads a handler's payload (JSON from the engine or a submitting route): an object with exactly
 * the given string fields, each checked by its rule. Anything else is VALIDATION_ERROR naming
 * the fields, as a request body would be.
 */
export function readPayload<K extends string>(
  payload: unknown,
  rules: Record<K, { test: (value: string) => boolean; code: string; message: string }>,
): Record<K, string> {
  const errors: FieldError[] = [];
  const body = (typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? payload : {}) as Record<string, unknown>;
  const out = {} as Record<K, string>;
  for (const [field, rule] of Object.entries(rules) as Array<[K, (typeof rules)[K]]>) {
    const value = body[field];
    if (value === undefined) errors.push({ field: `payload.${field}`, code: 'REQUIRED', message: 'is required' });
    else if (typeof value !== 'string' || !rule.test(value))
      errors.push({ field: `payload.${field}`, code: rule.code, message: rule.message });
    else out[field] = value;
  }
  for (const field of Object.keys(body)) {
    if (!(field in rules)) errors.push({ field: `payload.${field}`, code: 'UNKNOWN_FIELD', message: 'is not allowed' });
  }
  if (errors.length > 0) throw new AppException('VALIDATION_ERROR', errors.map((e) => `${e.field} ${e.message}`).join('; '), { errors });
  return out;
}

export const USER_ID_RULE = { test: isUuid, code: 'INVALID_UUID', message: 'must be a UUID' };
export const REASON_RULE = {
  test: (v: string) => v.trim().length > 0 && v.length <= 500,
  code: 'INVALID_REASON',
  message: 'must be 1 to 500 characters, not blank',
};
