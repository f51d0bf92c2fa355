import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { AppException } from '@mm/errors';

/**
 * Every request body of every service, before its handler: PostgreSQL cannot store U+0000 in text
 * or jsonb, so a string holding one (in a value or a key, at any depth) would only fail at the
 * INSERT, as a 500. Refused here instead, as the 400 VALIDATION_ERROR of any other malformed field.
 * The first global pipe (bootstrap.ts), so it also sees bodies a route checks with compiled rules
 * (the ledger's transition) and bodies the ValidationPipe would skip.
 */
@Injectable()
export class StorableTextPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'body') return value;
    const field = nulField(value, '');
    if (field !== undefined) {
      const message = 'must not contain the character U+0000';
      throw new AppException('VALIDATION_ERROR', `${field || 'body'}: ${message}`, {
        errors: [{ field: field || 'body', code: 'INVALID_CHARACTER', message }],
      });
    }
    return value;
  }
}

/** The path of the first string (value or key) holding U+0000, or undefined. */
function nulField(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (Array.isArray(value)) {
    for (let k = 0; k < value.length; k++) {
      const found = nulField(value[k], `${path}[${k}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, v] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (key.includes('\u0000')) return at;
      const found = nulField(v, at);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
