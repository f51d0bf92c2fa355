import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { WEBHOOK_EVENT_FILTERS, type WebhookEventFilter, type WebhookEventSearch } from '@mm/contracts';
import { OptionalField } from '@mm/errors';
import { IsInstant } from '@mm/platform';

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const UUID_LIST_PATTERN = `^${UUID}(,${UUID}){0,9}$`;

/** The back office's event list: one integration's endpoints, filtered, newest received first. */
export class SearchEventsQuery implements Omit<WebhookEventSearch, 'endpointIds'> {
  @ApiProperty({
    description: 'the endpoints to look in, comma-separated (an integration has a live and a test one); at most 10',
    pattern: UUID_LIST_PATTERN,
    example: '7c9e6679-7425-40de-944b-e07fc1f90ae7,0b5f2a7e-3c1d-4e8f-9a6b-2d4c8e1f3a5b',
  })
  @IsString()
  @Matches(new RegExp(UUID_LIST_PATTERN), {
    message: 'endpointIds must be 1 to 10 comma-separated UUIDs',
  })
  endpointIds: string;

  @ApiPropertyOptional({ enum: WEBHOOK_EVENT_FILTERS, example: 'undelivered', description: '`undelivered`: failed or held' })
  @OptionalField()
  @IsIn(WEBHOOK_EVENT_FILTERS)
  status?: WebhookEventFilter;

  @ApiPropertyOptional({ example: 'order.paid', maxLength: 100 })
  @OptionalField()
  @IsString()
  @Matches(/^[a-z][a-z0-9_.]{0,99}$/)
  eventType?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'received at or after', example: '2026-11-22T00:00:00.000Z' })
  @OptionalField()
  @IsInstant()
  since?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'received before', example: '2026-11-23T00:00:00.000Z' })
  @OptionalField()
  @IsInstant()
  until?: string;

  @ApiPropertyOptional({
    description: 'nextCursor of the previous page',
    maxLength: 200,
    example: 'MjAyNi0xMS0yMiAxMDowMDowMC4wMTIrMDB8MGI1ZjJhN2UtM2MxZC00ZThmLTlhNmItMmQ0YzhlMWYzYTVi',
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_CURSOR' } })
  @MaxLength(200, { context: { code: 'INVALID_CURSOR' } })
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20, example: 20 })
  @OptionalField()
  @Type(() => Number)
  @IsInt({ context: { code: 'INVALID_LIMIT' } })
  @Min(1, { context: { code: 'INVALID_LIMIT' } })
  @Max(100, { context: { code: 'INVALID_LIMIT' } })
  limit?: number;
}
