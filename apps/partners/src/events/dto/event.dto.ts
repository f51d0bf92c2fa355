import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { PARTNER_EVENT_TYPE_LIST, type PartnerEventType } from '@mm/contracts';
import { ListQueryDto } from '../../common/list-query.dto';

export class EventListQueryDto extends ListQueryDto {
  @ApiPropertyOptional({
    enum: PARTNER_EVENT_TYPE_LIST,
    example: 'order.paid',
    description: 'only events of this type (field code INVALID_EVENT_TYPE)',
  })
  @OptionalField()
  @IsIn(PARTNER_EVENT_TYPE_LIST, { context: { code: 'INVALID_EVENT_TYPE' } })
  type?: PartnerEventType;
}

export class EventDto {
  @ApiProperty({ enum: PARTNER_EVENT_TYPE_LIST, example: 'order.paid' })
  event: string;
  @ApiProperty({
    format: 'uuid',
    example: 'c2b4f6a8-1d3e-4f5a-9b7c-8d9e0f1a2b3c',
    description: "the webhook's Svc-Event-Id: deduplicate on it",
  })
  id: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:03:12.418Z' })
  createdAt: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: {
      orderId: '9a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d',
      transactionId: 'MMPTX2611220A1B2C3',
      amount: 2500,
      currencyCode: 'XAF',
      paidAt: '2026-11-22T10:03:12.301Z',
      externalReference: 'POS-00042-20261122-0007',
    },
    description: 'as in the webhook body of this type',
  })
  data: Record<string, unknown>;
}

export class EventPageDto {
  @ApiProperty({ type: [EventDto] })
  data: EventDto[];
  @ApiProperty({ nullable: true, type: String, example: null })
  nextCursor: string | null;
}
