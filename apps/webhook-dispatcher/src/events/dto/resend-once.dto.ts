import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import { OptionalField } from '@mm/errors';

/** The body of a resend of one event: an optional idempotency key (the back office always sends one). */
export class ResendOnceDto {
  @ApiPropertyOptional({
    format: 'uuid',
    example: '3f1e7a52-9c4b-4d2e-8a61-5b7c9d0e1f2a',
    description:
      'the same key sent again answers the run it started (`repeated: true`) instead of starting another; with a key, an event ' +
      'still pending is refused (409 WEBHOOK_EVENT_PENDING)',
  })
  @OptionalField()
  @IsUUID()
  idempotencyKey?: string;
}
