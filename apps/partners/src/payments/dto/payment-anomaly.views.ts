import { ApiProperty } from '@nestjs/swagger';
import { type Page, type PaymentAnomalyView, SUPPORTED_CURRENCIES } from '@mm/contracts';

/*
 * OpenAPI shapes of what the internal payment-anomaly routes answer. The classes `implement` the
 * contract types the service returns, so a field added to the contract without its documentation
 * fails to compile.
 */

export const PAYMENT_ANOMALY_KINDS = ['order_expired', 'order_already_paid', 'payment_mismatch', 'test_order'] as const;

export class PaymentAnomalyViewDto implements PaymentAnomalyView {
  @ApiProperty({ format: 'uuid', example: '2c4e6a8b-0d1f-4a3b-8c5d-7e9f1a2b3c4d' })
  id: string;

  @ApiProperty({
    enum: PAYMENT_ANOMALY_KINDS,
    example: 'order_expired',
    description:
      'why the payment could not pay its order: it expired, it was already paid, amount/currency/account did not match, or it was a test-mode order',
  })
  kind: PaymentAnomalyView['kind'];

  @ApiProperty({ format: 'uuid', example: '9a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d' })
  orderId: string;

  @ApiProperty({ format: 'uuid', example: '6e5d4c3b-2a19-4f08-8e7d-6c5b4a392817', description: 'the ledger transaction to reverse' })
  transactionId: string;

  @ApiProperty({ example: 'MMPTX2611220A1B2C3', description: "the ledger transaction's readable reference" })
  transactionReference: string;

  @ApiProperty({ example: 2_500, description: 'integer, smallest unit: what the payment moved' })
  amount: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({ format: 'uuid', example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a', description: 'the ledger account the payment credited' })
  destinationAccountId: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: {
      expiredAt: '2026-11-22T10:15:00.000Z',
      sourceAccountId: '1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9',
      intentId: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
      occurredAt: '2026-11-22T10:16:02.000Z',
    },
    description:
      "depends on kind (expiredAt; paidBy and paidAt; mismatches; reason), always with the payment's sourceAccountId, intentId and occurredAt",
  })
  details: Record<string, unknown>;

  @ApiProperty({ enum: ['open', 'resolved'], example: 'open' })
  status: 'open' | 'resolved';

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:16:02.118Z' })
  createdAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  resolvedAt: string | null;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'the admin who resolved it' })
  resolvedBy: string | null;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'how it was settled, e.g. the reference of the reversal' })
  resolution: string | null;
}

export class PaymentAnomalyPageDto implements Page<PaymentAnomalyView> {
  @ApiProperty({ type: [PaymentAnomalyViewDto], description: 'newest first' })
  data: PaymentAnomalyViewDto[];

  @ApiProperty({ type: String, nullable: true, example: null, description: 'pass as cursor for the next page; null on the last page' })
  nextCursor: string | null;
}
