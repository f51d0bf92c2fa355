import { AppException } from '@mm/errors';
import { isIsoInstant } from '@mm/platform';

/**
 * Opaque keyset cursors: the sort key of the last row of a page, base64url JSON. A cursor that does
 * not decode is a client error (400 VALIDATION_ERROR on `cursor`), never a 500.
 */
export function encodeCursor(key: [string, string]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function decodeCursor(cursor: string): [string, string] {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      isIsoInstant(value[0]) &&
      typeof value[1] === 'string' &&
      UUID.test(value[1])
    ) {
      return [value[0], value[1]];
    }
  } catch {
    // fall through
  }
  throw new AppException('VALIDATION_ERROR', 'cursor: not a cursor this API issued', {
    errors: [{ field: 'cursor', code: 'INVALID_CURSOR', message: 'not a cursor this API issued' }],
  });
}
