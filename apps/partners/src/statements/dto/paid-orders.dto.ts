import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsUUID } from 'class-validator';
import { PAID_ORDER_LOOKUP_MAX, type PaidOrderRef, type PaidOrdersAnswer } from '@mm/contracts';

/** `POST /internal/partners/statements/paid-orders`: which of these ledger transactions paid an order. */
export class PaidOrdersLookupDto {
  @ApiProperty({
    type: [String],
    format: 'uuid',
    minItems: 1,
    maxItems: PAID_ORDER_LOOKUP_MAX,
    example: ['952d7761-bd47-4c7e-a37b-af9e58997e7b'],
    description: `ledger transaction ids (1 to ${PAID_ORDER_LOOKUP_MAX})`,
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(PAID_ORDER_LOOKUP_MAX)
  @IsUUID('all', { each: true })
  transactionIds: string[];
}

/** One transaction that paid a live order (the contract's PaidOrderRef, documented). */
export class PaidOrderRefView implements PaidOrderRef {
  @ApiProperty({ format: 'uuid', example: '952d7761-bd47-4c7e-a37b-af9e58997e7b', description: 'the paying ledger transaction' })
  transactionId: string;

  @ApiProperty({ format: 'uuid', example: '5d2c6f0e-3a8b-4c1d-9e7f-a0b1c2d3e4f5' })
  orderId: string;

  @ApiProperty({ type: String, nullable: true, example: 'TILL1-000123' })
  externalReference: string | null;
}

/** The answer of a lookup (the contract's PaidOrdersAnswer, documented). */
export class PaidOrdersAnswerView implements PaidOrdersAnswer {
  @ApiProperty({ type: [PaidOrderRefView], description: 'the transactions that paid a live order; the others are left out' })
  orders: PaidOrderRefView[];

  @ApiProperty({
    type: [String],
    format: 'uuid',
    example: [],
    description: 'transactions whose ledger event partners has not applied yet: whether they paid an order is not known yet',
  })
  unapplied: string[];
}
