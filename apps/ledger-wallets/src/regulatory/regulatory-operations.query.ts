import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { type Currency, MAX_REGULATORY_PAGE, SUPPORTED_CURRENCIES, encodeRegulatoryCursor } from '@mm/contracts';
import { OptionalField } from '@mm/errors';
import { IsInstant } from '@mm/platform';

/** `GET /v1/internal/regulatory/operations`: one currency, one window [from, to), amounts at or above `minAmount`. */
export class RegulatoryOperationsQueryDto {
  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  @IsIn(SUPPORTED_CURRENCIES)
  currency: Currency;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    example: 5_000_000,
    description: 'smallest currency unit; an operation of exactly this amount is included',
  })
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  minAmount: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-26T23:00:00.000Z', description: 'completed at or after' })
  @IsInstant()
  from: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-27T23:00:00.000Z', description: 'completed before; at most 7 days after `from`' })
  @IsInstant()
  to: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_REGULATORY_PAGE, default: 500, example: 500 })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_REGULATORY_PAGE)
  limit?: number;

  @ApiPropertyOptional({
    maxLength: 200,
    description: 'nextCursor of the previous page (field code INVALID_CURSOR)',
    example: encodeRegulatoryCursor('2026-11-27T09:14:03.123456Z', 'MMPTX2611270A1B2C3'),
  })
  @OptionalField()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}
