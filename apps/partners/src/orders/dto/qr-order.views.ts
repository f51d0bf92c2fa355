import { ApiProperty } from '@nestjs/swagger';
import { type Currency, ORDER_STATUSES, type OrderStatus, type QrOrderResolution, SUPPORTED_CURRENCIES } from '@mm/contracts';

/*
 * OpenAPI shape of what the internal QR route answers. The class `implements` the contract type the
 * service returns, so a field added to the contract without its documentation fails to compile; the
 * orders test compares a real answer with this schema.
 */

export class QrOrderResolutionView implements QrOrderResolution {
  @ApiProperty({ format: 'uuid', example: '9a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d' })
  orderId: string;

  @ApiProperty({
    pattern: '^pqr_[0-9A-Za-z]{43}$',
    example: 'pqr_4kT9xQ2mZbV7nC1rL8sD3fG6hJ0wE5yA2uI9oP7tR4e',
    description: 'the scanned token; the ledger intent that pays the order must carry it',
  })
  qrToken: string;

  @ApiProperty({
    enum: ORDER_STATUSES,
    example: 'pending',
    description: 'still pending after expiresAt until the expiry sweep marks it expired: read payable, not status',
  })
  status: OrderStatus;

  @ApiProperty({ example: true, description: 'pending and before expiresAt: pay only when true' })
  payable: boolean;

  @ApiProperty({ format: 'uuid', example: '3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c' })
  merchantId: string;

  @ApiProperty({
    format: 'uuid',
    example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a',
    description: "the merchant's ledger account in this currency: the payment must credit exactly this account",
  })
  destinationAccountId: string;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    example: 2500,
    description: 'smallest currency unit: pay exactly this',
  })
  amount: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currencyCode: Currency;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:05:00.000Z' })
  expiresAt: string;

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-22T10:05:30.000Z',
    description:
      'the latest a payment may commit and still pay the order (expiresAt plus half the expiry grace): the paying intent must end by then',
  })
  payBy: string;

  @ApiProperty({ format: 'uuid', example: '0d8e9f1a-2b3c-4d5e-8f70-8192a3b4c5d6' })
  integrationId: string;

  @ApiProperty({ example: 'Café du Port POS', description: 'the partner integration that created the order, shown to the payer' })
  integrationName: string;

  @ApiProperty({
    type: String,
    nullable: true,
    maxLength: 280,
    example: 'Table 4: 2 cafés, 1 croissant',
    description: 'shown to the payer',
  })
  description: string | null;
}
