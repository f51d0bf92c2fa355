import { Injectable, type PipeTransform } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { isUuid } from '@mm/platform';

/** Route ids are UUIDs: anything else is a 400 VALIDATION_ERROR naming the parameter, never a 500 from SQL. */
@Injectable()
export class UuidParamPipe implements PipeTransform<string, string> {
  constructor(private readonly field: string) {}

  transform(value: string): string {
    if (!isUuid(value)) {
      throw new AppException('VALIDATION_ERROR', `${this.field} must be a UUID`, {
        errors: [{ field: this.field, code: 'INVALID_UUID', message: `${this.field} must be a UUID` }],
      });
    }
    return value.toLowerCase();
  }
}
