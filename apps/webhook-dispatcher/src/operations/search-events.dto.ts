import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Matches } from 'class-validator';
import {
  WEBHOOK_EVENT_FILTERS,
  WebhookEventCursorField,
  type WebhookEventFilter,
  WebhookEventLimitField,
  type WebhookEventSearch,
  WebhookEventTypeField,
} from '@mm/contracts';
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

  @WebhookEventTypeField()
  eventType?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'received at or after', example: '2026-11-22T00:00:00.000Z' })
  @OptionalField()
  @IsInstant()
  since?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'received before', example: '2026-11-23T00:00:00.000Z' })
  @OptionalField()
  @IsInstant()
  until?: string;

  @WebhookEventCursorField()
  cursor?: string;

  @WebhookEventLimitField()
  limit?: number;
}
