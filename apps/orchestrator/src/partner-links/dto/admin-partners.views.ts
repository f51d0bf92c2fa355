import { ApiProperty } from '@nestjs/swagger';
import {
  CONNECTION_STATUSES,
  type ConnectionStatus,
  type ConnectionView,
  PARTNER_SCOPES,
  type Page,
  type PartnerMode,
  type PartnerScope,
  type PaymentAnomalyView,
  type RevokedBy,
  SUPPORTED_CURRENCIES,
  type WebhookEndpointView,
} from '@mm/contracts';
import { IntegrationViewDto } from './partner-links.views';

/*
 * OpenAPI shapes of the admin partner routes' answers not described in partner-links.views.ts
 * (the data comes from the partners service, unchanged). The classes `implement` the contract
 * types, so a field added to the contract without its documentation fails to compile.
 */

// Page of the existing IntegrationViewDto, whose `status` is typed string (not the contract's union).
export class IntegrationPageDto implements Page<IntegrationViewDto> {
  @ApiProperty({ type: [IntegrationViewDto], description: 'newest first' })
  data: IntegrationViewDto[];

  @ApiProperty({ type: String, nullable: true, example: null, description: 'pass as cursor for the next page; null on the last page' })
  nextCursor: string | null;
}

export class WebhookEndpointViewDto implements WebhookEndpointView {
  @ApiProperty({ enum: ['live', 'test'], example: 'live' })
  mode: PartnerMode;

  @ApiProperty({ example: 'https://pos.caisse-rapide.example/webhooks/mm' })
  url: string;

  @ApiProperty({ enum: ['enabled', 'disabled'], example: 'enabled' })
  status: 'enabled' | 'disabled';
}

/** A connection as the integration sees it (the answer of an admin revoke). */
export class ConnectionViewDto implements ConnectionView {
  @ApiProperty({ format: 'uuid', example: '7b1f3c1e-55a4-4c1e-9d0e-2f6d0c9b8a11' })
  id: string;

  @ApiProperty({ format: 'uuid', example: '0d8e9f1a-2b3c-4d5e-8f70-8192a3b4c5d6' })
  integrationId: string;

  @ApiProperty({ format: 'uuid', example: '3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c' })
  merchantId: string;

  @ApiProperty({ enum: CONNECTION_STATUSES, example: 'revoked' })
  status: ConnectionStatus;

  @ApiProperty({ isArray: true, enum: PARTNER_SCOPES, example: ['orders.write'] })
  scopes: PartnerScope[];

  @ApiProperty({ type: String, nullable: true, example: 'Accept mobile-money payments at your till' })
  requestedReason: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-29T10:00:00.000Z' })
  pendingExpiresAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-22T10:05:00.000Z' })
  activatedAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-23T08:00:00.000Z' })
  revokedAt: string | null;

  @ApiProperty({ enum: ['merchant', 'integration', 'admin', 'system'], nullable: true, example: 'admin' })
  revokedBy: RevokedBy | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-23T08:00:00.000Z' })
  updatedAt: string;

  @ApiProperty({ example: true, description: 'false for a test-mode connection' })
  livemode: boolean;
}

export class PaymentAnomalyViewDto implements PaymentAnomalyView {
  @ApiProperty({ format: 'uuid', example: '2c4e6a8b-0d1f-4a3b-8c5d-7e9f1a2b3c4d' })
  id: string;

  @ApiProperty({
    enum: ['order_expired', 'order_already_paid', 'payment_mismatch', 'test_order'],
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

  @ApiProperty({ type: String, nullable: true, example: null, description: 'the admin (user id) who resolved it' })
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
