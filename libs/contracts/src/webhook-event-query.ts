import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { OptionalField } from '@mm/errors';

/*
 * Query fields of a webhook event search that the orchestrator's back-office route
 * (`GET /api/backoffice/webhooks/integrations/:id/events`) and the dispatcher's internal search it
 * forwards to (`DISPATCHER_OPERATIONS_ROUTES.searchEvents`) validate alike. Field decorators, not a
 * base class: each query keeps its own fields in its own order (a base class's fields would come
 * first among the OpenAPI parameters). `since` and `until` stay with each query: their rule,
 * IsInstant, lives in @mm/platform, which depends on this library.
 */

const EVENT_TYPE = /^[a-z][a-z0-9_.]{0,99}$/;

/** `eventType`: one event name (`order.paid`). */
export function WebhookEventTypeField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ example: 'order.paid', maxLength: 100, pattern: EVENT_TYPE.source }),
    OptionalField(),
    IsString(),
    Matches(EVENT_TYPE),
  );
}

/** `cursor`: the previous page's nextCursor (field code INVALID_CURSOR). */
export function WebhookEventCursorField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      description: 'nextCursor of the previous page',
      maxLength: 200,
      example: 'MjAyNi0xMS0yMiAxMDowMDowMC4wMTIrMDB8MGI1ZjJhN2UtM2MxZC00ZThmLTlhNmItMmQ0YzhlMWYzYTVi',
    }),
    OptionalField(),
    IsString({ context: { code: 'INVALID_CURSOR' } }),
    MaxLength(200, { context: { code: 'INVALID_CURSOR' } }),
  );
}

/** `limit`: events a page, 1 to 100, 20 when absent (field code INVALID_LIMIT). */
export function WebhookEventLimitField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20, example: 20 }),
    OptionalField(),
    Type(() => Number),
    IsInt({ context: { code: 'INVALID_LIMIT' } }),
    Min(1, { context: { code: 'INVALID_LIMIT' } }),
    Max(100, { context: { code: 'INVALID_LIMIT' } }),
  );
}
