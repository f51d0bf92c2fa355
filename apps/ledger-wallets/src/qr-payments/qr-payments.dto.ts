import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsString, Length } from 'class-validator';
import { QR_PAYMENTS_MAX_TOKENS, type QrPaymentsAnswer, type QrPaymentsRequest, type TransactionCompletedEvent } from '@mm/contracts';

export class QrPaymentsRequestDto implements QrPaymentsRequest {
  @ApiProperty({ type: [String], minItems: 1, maxItems: QR_PAYMENTS_MAX_TOKENS, example: ['QR8Jd2kP0aZ3xY7q'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(QR_PAYMENTS_MAX_TOKENS)
  @IsString({ each: true })
  @Length(1, 200, { each: true })
  qrTokens: string[];
}

export class QrPaymentsAnswerDto implements QrPaymentsAnswer {
  @ApiProperty({ type: [String], example: ['QR8Jd2kP0aZ3xY7q'], description: 'the tokens asked about that an intent paid (SUCCEEDED)' })
  paid: string[];

  @ApiProperty({
    type: [String],
    example: [],
    description: 'the tokens asked about with an intent not ended whose deadline has not passed',
  })
  open: string[];

  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    example: [
      { eventId: '0b8f3c5e-7a52-4d0e-9a1f-3c2b1d4e5f60', type: 'transaction.completed', qrToken: 'QR8Jd2kP0aZ3xY7q', amount: 2500 },
    ],
    description:
      "the transaction.completed events of the paid tokens' payments, as published on ledger-events (libs/contracts TransactionCompletedEvent)",
  })
  payments: TransactionCompletedEvent[];
}
