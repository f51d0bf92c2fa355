import { Injectable, type PipeTransform } from '@nestjs/common';
import { AppException } from '@mm/errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `:id` of the intent routes: a UUID (400 VALIDATION_ERROR, field code INVALID_UUID), lower-cased. */
@Injectable()
export class IntentIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (typeof value === 'string' && UUID.test(value)) return value.toLowerCase();
    throw new AppException('VALIDATION_ERROR', 'id must be a UUID', {
      errors: [{ field: 'id', code: 'INVALID_UUID', message: 'must be a UUID' }],
    });
  }
}
