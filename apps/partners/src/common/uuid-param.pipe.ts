import { Injectable, type PipeTransform } from '@nestjs/common';
import { AppException, type ErrorCode } from '@mm/errors';
import { isUuid } from '@mm/platform';

/**
 * Route ids are UUIDs. By default anything else is a 400 VALIDATION_ERROR naming the parameter;
 * with `notFound` it is that 404 instead, for ids whose very shape must not be a signal (a
 * connection id that is not a UUID answers exactly like an unknown one).
 */
@Injectable()
export class UuidParamPipe implements PipeTransform<string, string> {
  constructor(
    private readonly field: string,
    private readonly notFound?: ErrorCode,
  ) {}

  transform(value: string): string {
    if (!isUuid(value)) {
      if (this.notFound) throw new AppException(this.notFound);
      throw new AppException('VALIDATION_ERROR', `${this.field} must be a UUID`, {
        errors: [{ field: this.field, code: 'INVALID_UUID', message: `${this.field} must be a UUID` }],
      });
    }
    return value.toLowerCase();
  }
}
