import { Injectable, type PipeTransform } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsUUID } from 'class-validator';
import {
  PARTNER_MODES,
  type PartnerMode,
  WEBHOOK_EVENT_FILTERS,
  WebhookEventCursorField,
  type WebhookEventFilter,
  WebhookEventLimitField,
  WebhookEventTypeField,
} from '@mm/contracts';
import { AppException, OptionalField } from '@mm/errors';
import { IsInstant } from '@mm/platform';

export class WebhookEventsQuery {
  @ApiPropertyOptional({ enum: WEBHOOK_EVENT_FILTERS, example: 'undelivered', description: '`undelivered`: failed or held' })
  @OptionalField()
  @IsIn(WEBHOOK_EVENT_FILTERS, { context: { code: 'INVALID_STATUS' } })
  status?: WebhookEventFilter;

  @WebhookEventTypeField()
  eventType?: string;

  @ApiPropertyOptional({ enum: PARTNER_MODES, example: 'live', description: 'both endpoints when absent' })
  @OptionalField()
  @IsIn(PARTNER_MODES)
  mode?: PartnerMode;

  @ApiPropertyOptional({ format: 'date-time', example: '2026-11-22T00:00:00.000Z', description: 'received at or after' })
  @OptionalField()
  @IsInstant()
  since?: string;

  @ApiPropertyOptional({ format: 'date-time', example: '2026-11-23T00:00:00.000Z', description: 'received before' })
  @OptionalField()
  @IsInstant()
  until?: string;

  @WebhookEventCursorField()
  cursor?: string;

  @WebhookEventLimitField()
  limit?: number;
}

export class ResendEventDto {
  @ApiProperty({
    format: 'uuid',
    example: '3f1e7a52-9c4b-4d2e-8a61-5b7c9d0e1f2a',
    description:
      'one per resend the operator means: the same key sent again answers the run it started (`repeated: true`) and queues nothing',
  })
  @IsUUID()
  idempotencyKey: string;
}

export class RecoverEventsDto {
  @ApiProperty({
    format: 'date-time',
    example: '2026-11-21T00:00:00.000Z',
    description: 'every failed or held event received since this time (at most 31 days ago) is queued again',
  })
  @IsInstant()
  since: string;

  @ApiPropertyOptional({ enum: PARTNER_MODES, example: 'live', description: 'both endpoints when absent' })
  @OptionalField()
  @IsIn(PARTNER_MODES)
  mode?: PartnerMode;
}

/** `live` or `test` in a path: anything else is a 400 naming the parameter. */
@Injectable()
export class ModeParamPipe implements PipeTransform<string, PartnerMode> {
  transform(value: string): PartnerMode {
    if (!(PARTNER_MODES as readonly string[]).includes(value)) {
      throw new AppException('VALIDATION_ERROR', 'mode must be live or test', {
        errors: [{ field: 'mode', code: 'INVALID_MODE', message: 'must be live or test' }],
      });
    }
    return value as PartnerMode;
  }
}
