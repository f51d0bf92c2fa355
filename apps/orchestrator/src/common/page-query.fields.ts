import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { encodeOperationCursor } from '@mm/contracts';
import { OptionalField } from '@mm/errors';

/*
 * The two paging fields of the back office's keyset-paged searches (transactions, workflows), as
 * field decorators rather than a base class: a class's inherited properties come first in the
 * OpenAPI parameters, and these stay last, where the routes have always listed them.
 */

/** `cursor`: the previous page's nextCursor, at most 200 characters (field code INVALID_CURSOR). */
export function PageCursorField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      maxLength: 200,
      description: 'nextCursor of the previous page, with the same filters (field code INVALID_CURSOR)',
      example: encodeOperationCursor('2026-11-22T10:00:00.123456Z', '7b0e4f9a-1b2d-4e3f-8a5b-6c7d8e9f0a1b'),
    }),
    OptionalField(),
    IsString({ context: { code: 'INVALID_CURSOR' } }),
    MaxLength(200, { context: { code: 'INVALID_CURSOR' } }),
  );
}

/** `limit`: a page size from 1 to 100, 20 when absent (field code INVALID_LIMIT). */
export function PageLimitField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20, example: 20, description: 'page size (field code INVALID_LIMIT)' }),
    OptionalField(),
    // Digits only become a number; anything else reaches the rules as it came and is refused.
    Transform(({ value }) => (typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : value)),
    IsInt({ context: { code: 'INVALID_LIMIT' } }),
    Min(1, { context: { code: 'INVALID_LIMIT' } }),
    Max(100, { context: { code: 'INVALID_LIMIT' } }),
  );
}
