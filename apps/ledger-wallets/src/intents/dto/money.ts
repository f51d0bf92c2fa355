import { applyDecorators } from '@nestjs/common';
import { IsInt, Max, Min } from 'class-validator';

/**
 * A money amount in the smallest unit: an integer within JavaScript's safe range (the column is
 * bigint; anything larger could not be represented exactly in JSON clients). Field code INVALID_AMOUNT.
 */
export function IsMoney(min = 1): PropertyDecorator {
  return applyDecorators(
    IsInt({ context: { code: 'INVALID_AMOUNT' } }),
    Min(min, { context: { code: 'INVALID_AMOUNT' } }),
    Max(Number.MAX_SAFE_INTEGER, { context: { code: 'INVALID_AMOUNT' } }),
  );
}
