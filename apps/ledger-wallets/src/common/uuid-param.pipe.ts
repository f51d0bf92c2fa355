import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { AppException } from '@mm/errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Path ids are UUIDs: anything else is a client mistake (400), never a database cast error (500). */
@Injectable()
export class UuidParamPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    if (typeof value === 'string' && UUID.test(value)) return value.toLowerCase();
    const field = metadata.data ?? 'id';
    throw new AppException('VALIDATION_ERROR', `${field} must be a UUID`, {
      errors: [{ field, code: 'INVALID_UUID', message: `${field} must be a UUID` }],
    });
  }
}

/**
 * `X-Idempotency-Key`: optional where docs/ledger.md "Idempotency" says so; when present, 1 to 255
 * printable characters.
 */
export function idempotencyKeyHeader(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.length > 255 || !/^[\x21-\x7e]+$/.test(value)) {
    throw new AppException('VALIDATION_ERROR', 'X-Idempotency-Key must be 1 to 255 printable characters', {
      errors: [{ field: 'X-Idempotency-Key', code: 'INVALID_IDEMPOTENCY_KEY', message: 'must be 1 to 255 printable characters' }],
    });
  }
  return value;
}
