import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsString, IsUUID, Matches } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { IsInstant } from '@mm/platform';

/** An event to deliver (the partners service's producer path, also used by tests and operators). */
export class EnqueueEventDto {
  @ApiProperty({
    description: 'the partner integration whose endpoint receives the event',
    format: 'uuid',
    example: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  })
  @IsUUID()
  integrationId: string;

  @ApiProperty({ description: 'event name', pattern: '^[a-z][a-z0-9_.]{0,99}$', maxLength: 100, example: 'order.paid' })
  @IsString()
  @Matches(/^[a-z][a-z0-9_.]{0,99}$/)
  event: string;

  /** UUID v4, the receiver's idempotency key */
  @ApiProperty({
    description: "event id (UUID v4), the receiver's idempotency key",
    format: 'uuid',
    example: '0b5f2a7e-3c1d-4e8f-9a6b-2d4c8e1f3a5b',
  })
  @IsUUID('4')
  id: string;

  /** defaults to now */
  @ApiPropertyOptional({ description: 'defaults to now', format: 'date-time', example: '2026-03-01T12:00:00Z' })
  @OptionalField()
  @IsInstant()
  createdAt?: string;

  @ApiProperty({
    description: 'event payload, delivered as is',
    type: 'object',
    additionalProperties: true,
    example: { orderId: 'ord_123', amount: 5000, currency: 'XAF' },
  })
  @IsObject()
  data: Record<string, unknown>;
}
