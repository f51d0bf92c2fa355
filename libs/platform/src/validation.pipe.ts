import { type ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { validationExceptionFactory } from '@mm/errors';

/**
 * The ValidationPipe every service validates bodies, queries and params with: unknown fields
 * refused, values converted to the DTO class, failures as 400 VALIDATION_ERROR with one entry per
 * field (libs/errors/src/validation.ts).
 *
 * One addition to Nest's pipe: a body that is JSON `null` is refused like any other body that is
 * not an object (an array, a string: field `body`, code INVALID_OBJECT). Nest turns a null body into
 * `{}` before validating, so on a route whose fields are all optional `null` would pass as an empty
 * update. An empty request (no bytes) is no body at all and is not concerned.
 */
export class PlatformValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      exceptionFactory: validationExceptionFactory,
      validationError: { target: false, value: false },
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (value === null && metadata.type === 'body' && metadata.data === undefined && this.toValidate(metadata)) {
      throw validationExceptionFactory([
        { property: 'body', constraints: { isObject: 'the request body must be a JSON object, not null' }, children: [] },
      ]);
    }
    return super.transform(value, metadata);
  }
}
