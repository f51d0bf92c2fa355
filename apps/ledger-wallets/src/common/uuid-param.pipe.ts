import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { AppException } from '@mm/errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Path ids are UUIDs: anything else is a client mistake (400), never a database cast error (500). */
@Injectable()
export class UuidParamPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    if (typeof value === 'string' && UUID.test(value)) return value.toLowerCase();
    const field = metadata.data ?? 'id';
    throw new AppException('VALIDATION_ERROR', `${field} must be a UUID`, { errors: [{ field, code: 'INVALID_UUID', message: `${field} must be a UUID` }] });
  }
}
