import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { IsInstant } from '@mm/platform';

export const HISTORY_TYPES = ['TRANSFER', 'MERCHANT_PAYMENT', 'CASH_IN', 'CASH_OUT'] as const;
export type HistoryType = (typeof HISTORY_TYPES)[number];

/** `GET /api/v1/transactions` query. */
export class TransactionQueryDto {
  @ApiPropertyOptional({
    description: 'nextCursor of the previous page (field code INVALID_CURSOR)',
    maxLength: 200,
    example: 'WyIyMDI2LTExLTIyVDEwOjAwOjAwLjAwMFoiLCI3YjBlNGY5YS0xYjJkLTRlM2YtOGE1Yi02YzdkOGU5ZjBhMWIiXQ',
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_CURSOR' } })
  @MaxLength(200, { context: { code: 'INVALID_CURSOR' } })
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20, example: 20, description: 'page size (field code INVALID_LIMIT)' })
  @OptionalField()
  @Transform(({ value }) => (typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : value))
  @IsInt({ context: { code: 'INVALID_LIMIT' } })
  @Min(1, { context: { code: 'INVALID_LIMIT' } })
  @Max(100, { context: { code: 'INVALID_LIMIT' } })
  limit?: number;

  @ApiPropertyOptional({
    example: '2026-11-01T00:00:00.000Z',
    description: 'completed at or after this instant (ISO 8601; field code INVALID_DATE)',
  })
  @OptionalField()
  @IsInstant({ context: { code: 'INVALID_DATE' } })
  from?: string;

  @ApiPropertyOptional({
    example: '2026-12-01T00:00:00.000Z',
    description: 'completed before this instant (ISO 8601; field code INVALID_DATE)',
  })
  @OptionalField()
  @IsInstant({ context: { code: 'INVALID_DATE' } })
  to?: string;

  @ApiPropertyOptional({ enum: HISTORY_TYPES, description: 'MERCHANT_PAYMENT is a TRANSFER to a merchant (field code INVALID_TYPE)' })
  @OptionalField()
  @IsIn(HISTORY_TYPES, { context: { code: 'INVALID_TYPE' } })
  type?: HistoryType;
}
