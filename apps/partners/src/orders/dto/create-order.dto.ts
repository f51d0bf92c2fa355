import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { ORDER_STATUSES, type OrderStatus, SUPPORTED_CURRENCIES } from '@mm/contracts';

export const TTL_DEFAULT_SEC = 300;

/**
 * `POST /partners-public/orders` (docs/partners.md "4. Orders"). Every faulty field is one entry of `errors[]` under a
 * top-level VALIDATION_ERROR, and that entry's `code` is the specific one of docs/partners.md "7. All error codes"
 * (INVALID_AMOUNT, INVALID_TTL, TTL_TOO_LONG, ...): the rule is documented on the route.
 */
export class CreateOrderDto {
  @ApiProperty({
    format: 'uuid',
    example: '3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c',
    description: 'merchantId of an active connection (field code INVALID_UUID)',
  })
  @IsUUID(undefined, { message: 'merchantId must be a UUID', context: { code: 'INVALID_UUID' } })
  merchantId: string;

  @ApiProperty({
    example: 2500,
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'integer in the smallest unit of the currency (XAF and XOF have none: 2500 = 2 500 F CFA); field code INVALID_AMOUNT',
  })
  @IsInt({ message: 'amount must be an integer', context: { code: 'INVALID_AMOUNT' } })
  @Min(1, { message: 'amount must be greater than 0', context: { code: 'INVALID_AMOUNT' } })
  @Max(Number.MAX_SAFE_INTEGER, { message: 'amount is too large', context: { code: 'INVALID_AMOUNT' } })
  amount: number;

  @ApiPropertyOptional({
    enum: SUPPORTED_CURRENCIES,
    default: 'XAF',
    example: 'XAF',
    description: 'ISO 4217 (field code UNSUPPORTED_CURRENCY)',
  })
  @OptionalField()
  @IsIn(SUPPORTED_CURRENCIES, { message: 'currencyCode must be XAF or XOF', context: { code: 'UNSUPPORTED_CURRENCY' } })
  currencyCode?: (typeof SUPPORTED_CURRENCIES)[number];

  @ApiPropertyOptional({
    minimum: 60,
    maximum: 900,
    default: TTL_DEFAULT_SEC,
    example: 300,
    description: 'lifetime of the QR in seconds; field code INVALID_TTL below 60 or not an integer, TTL_TOO_LONG above 900',
  })
  @OptionalField()
  // the type check is reported before the bounds: a value that is not an integer is INVALID_TTL whatever its size
  @IsInt({ message: 'ttlSeconds must be an integer', context: { code: 'INVALID_TTL' } })
  @Min(60, { message: 'ttlSeconds must be at least 60', context: { code: 'INVALID_TTL' } })
  @Max(900, { message: 'ttlSeconds must be at most 900', context: { code: 'TTL_TOO_LONG' } })
  ttlSeconds?: number;

  @ApiPropertyOptional({
    maxLength: 280,
    example: 'Table 4: 2 cafés, 1 croissant',
    description: 'shown to the payer; echoed in order.paid (field code INVALID_DESCRIPTION)',
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_DESCRIPTION' } })
  @MaxLength(280, { message: 'description must be at most 280 characters', context: { code: 'INVALID_DESCRIPTION' } })
  description?: string;

  @ApiPropertyOptional({
    maxLength: 128,
    example: 'POS-00042-20261122-0007',
    description: "the partner's own reference; echoed in order.paid (field code INVALID_EXTERNAL_REFERENCE)",
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_EXTERNAL_REFERENCE' } })
  @MaxLength(128, { message: 'externalReference must be at most 128 characters', context: { code: 'INVALID_EXTERNAL_REFERENCE' } })
  externalReference?: string;
}

export class OrderDto {
  @ApiProperty({ format: 'uuid', example: '9a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d', description: 'equals the QR identifier' })
  orderId: string;
  @ApiProperty({ example: 'pqr_4kT9xQ2mZbV7nC1rL8sD3fG6hJ0wE5yA2uI9oP7tR4e', description: 'opaque token to encode in the payment QR' })
  qrToken: string;
  @ApiProperty({ enum: ORDER_STATUSES, example: 'pending', description: 'pending → paid (order.paid) or expired (order.expired)' })
  status: OrderStatus;
  @ApiProperty({ example: 2500 })
  amount: number;
  @ApiProperty({ example: 'XAF' })
  currencyCode: string;
  @ApiProperty({
    format: 'date-time',
    example: '2026-11-22T10:05:00.000Z',
    description:
      'creation time plus ttlSeconds; after it the QR still resolves but answers payable: false, and the order turns expired when the sweeper passes',
  })
  expiresAt: string;
  @ApiProperty({ format: 'uuid', example: '3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c' })
  merchantId: string;
  @ApiProperty({ format: 'uuid', example: '0d8e9f1a-2b3c-4d5e-8f70-8192a3b4c5d6' })
  integrationId: string;
  @ApiPropertyOptional({ example: 'Table 4: 2 cafés, 1 croissant', description: 'only when given at creation' })
  description?: string;
  @ApiPropertyOptional({ example: 'POS-00042-20261122-0007', description: 'only when given at creation' })
  externalReference?: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, example: null, description: 'ledger commit time of the payment' })
  paidAt: string | null;
  @ApiProperty({ example: true, description: 'false for a test-mode order' })
  livemode: boolean;
}
