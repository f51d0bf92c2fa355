import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import {
  MAX_SEARCH_ACCOUNTS,
  OPERATION_STATUSES,
  OPERATION_TYPES,
  type OperationSearchStatus,
  type OperationSearchType,
  TRANSACTION_REFERENCE,
  encodeOperationCursor,
} from '@mm/contracts';
import { OptionalField } from '@mm/errors';
import { IsInstant } from '@mm/platform';
import { uuidList } from '../../statements/dto/statement-queries.dto';

/** `GET /v1/internal/operator-search/operations`: every filter optional, combined with AND. */
export class OperationSearchQueryDto {
  @ApiPropertyOptional({
    example: 'MMPTX2611220A1B2C3',
    pattern: TRANSACTION_REFERENCE.source,
    description: 'one transaction by its reference',
  })
  @OptionalField()
  @Matches(TRANSACTION_REFERENCE)
  reference?: string;

  @ApiPropertyOptional({
    description: `operations debiting or crediting one of these accounts, comma-separated (1 to ${MAX_SEARCH_ACCOUNTS})`,
    example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a',
    pattern: uuidList(MAX_SEARCH_ACCOUNTS).source,
  })
  @OptionalField()
  @Matches(uuidList(MAX_SEARCH_ACCOUNTS))
  accountIds?: string;

  @ApiPropertyOptional({ enum: OPERATION_TYPES })
  @OptionalField()
  @IsIn(OPERATION_TYPES)
  type?: OperationSearchType;

  @ApiPropertyOptional({ enum: OPERATION_STATUSES, description: 'an ADJUSTMENT is SUCCEEDED' })
  @OptionalField()
  @IsIn(OPERATION_STATUSES)
  status?: OperationSearchStatus;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, example: 1000 })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  minAmount?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, example: 50000 })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  maxAmount?: number;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-11-01T00:00:00.000Z',
    description: 'at or after (intent created, adjustment completed)',
  })
  @OptionalField()
  @IsInstant()
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', example: '2026-12-01T00:00:00.000Z', description: 'before' })
  @OptionalField()
  @IsInstant()
  to?: string;

  @ApiPropertyOptional({
    maxLength: 200,
    description: 'nextCursor of the previous page (field code INVALID_CURSOR)',
    example: encodeOperationCursor('2026-11-22T10:00:00.123456Z', '7b0e4f9a-1b2d-4e3f-8a5b-6c7d8e9f0a1b'),
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_CURSOR' } })
  @MaxLength(200, { context: { code: 'INVALID_CURSOR' } })
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 101, default: 20, example: 21 })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(101)
  limit?: number;
}
