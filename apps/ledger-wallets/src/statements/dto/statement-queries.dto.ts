import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsUUID, Matches, Max, Min } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { IsInstant } from '@mm/platform';

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/** A comma-separated list of 1 to `max` UUIDs (a query string carries a list this way). */
export const uuidList = (max: number) => new RegExp(`^${UUID}(,${UUID}){0,${max - 1}}$`);

/** Most accounts one holder has: a main and a commission account per currency. */
export const MAX_STATEMENT_ACCOUNTS = 10;
export const MAX_REVERSAL_LOOKUPS = 100;

/** `GET /v1/internal/adjustments`: the adjustments touching some accounts, newest first. */
export class AdjustmentsQueryDto {
  @ApiProperty({
    description: `the holder's account ids, comma-separated (1 to ${MAX_STATEMENT_ACCOUNTS})`,
    example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a,1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
    pattern: uuidList(MAX_STATEMENT_ACCOUNTS).source,
  })
  @Matches(uuidList(MAX_STATEMENT_ACCOUNTS))
  accountIds: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 101, default: 20, example: 21 })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(101)
  limit?: number;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-11-22T10:06:12.345Z',
    description: 'keyset: only adjustments strictly before (completedAt, beforeId); with beforeId',
  })
  @OptionalField()
  @IsInstant()
  before?: string;

  @ApiPropertyOptional({ format: 'uuid', example: '952d7761-bd47-4c7e-a37b-af9e58997e7b', description: 'keyset tie-break, with before' })
  @OptionalField()
  @IsUUID()
  beforeId?: string;

  @ApiPropertyOptional({ format: 'date-time', example: '2026-11-01T00:00:00.000Z', description: 'completed at or after' })
  @OptionalField()
  @IsInstant()
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', example: '2026-12-01T00:00:00.000Z', description: 'completed before' })
  @OptionalField()
  @IsInstant()
  to?: string;

  @ApiPropertyOptional({
    example: 'MMPTX2611220A1B2C3',
    description: 'only the adjustment with this reference',
    pattern: '^[A-Z]{3}TX\\d{6}[A-Z0-9]{7}$',
  })
  @OptionalField()
  @Matches(/^[A-Z]{3}TX\d{6}[A-Z0-9]{7}$/)
  referenceId?: string;
}

/** `GET /v1/internal/reversals`: which of these transactions were reversed, and by what. */
export class ReversalsQueryDto {
  @ApiProperty({
    description: `transaction ids, comma-separated (1 to ${MAX_REVERSAL_LOOKUPS})`,
    example: '952d7761-bd47-4c7e-a37b-af9e58997e7b',
    pattern: uuidList(MAX_REVERSAL_LOOKUPS).source,
  })
  @Matches(uuidList(MAX_REVERSAL_LOOKUPS))
  transactionIds: string;
}
