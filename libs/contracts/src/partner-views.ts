import { ApiProperty } from '@nestjs/swagger';
import {
  type ApiKeyView,
  CONNECTION_STATUSES,
  type ConnectionStatus,
  type ConnectionView,
  type CreatedIntegration,
  type IntegrationView,
  type IssuedApiKey,
  type MerchantConnectionView,
  PARTNER_MODES,
  PARTNER_SCOPES,
  PAYMENT_ANOMALY_KINDS,
  PAYMENT_ANOMALY_STATUSES,
  type Page,
  type PartnerMode,
  type PartnerScope,
  type PaymentAnomalyKind,
  type PaymentAnomalyStatus,
  type PaymentAnomalyView,
  REVOKED_BY,
  type RevokedBy,
  type RotatedWebhookSecret,
  type WebhookEndpointView,
} from './partners';
import { SUPPORTED_CURRENCIES } from './services';

/*
 * OpenAPI classes for the partners service's answers. They live here, next to the contract types,
 * because two documents describe the same data: the partners service answers it, and the
 * orchestrator forwards it unchanged on its merchant and admin routes. One class per shape keeps
 * the two documents from drifting apart. Each class `implements` its contract type, so a field
 * added to the contract without its documentation fails to compile.
 */

const NEXT_CURSOR = { type: String, nullable: true, example: null, description: 'pass as cursor for the next page; null on the last page' };

// ---------------------------------------------------------------------------------------------
// Connections
// ---------------------------------------------------------------------------------------------

/** What both sides see of a connection; each view below adds its own fields. */
class ConnectionFieldsDto {
  @ApiProperty({ format: 'uuid', example: '7b1f3c1e-55a4-4c1e-9d0e-2f6d0c9b8a11' })
  id: string;

  @ApiProperty({ format: 'uuid', example: '0d8e9f1a-2b3c-4d5e-8f70-8192a3b4c5d6' })
  integrationId: string;

  @ApiProperty({ format: 'uuid', example: '3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c' })
  merchantId: string;

  @ApiProperty({ enum: CONNECTION_STATUSES, example: 'active' })
  status: ConnectionStatus;

  @ApiProperty({ isArray: true, enum: PARTNER_SCOPES, example: ['orders.write'] })
  scopes: PartnerScope[];

  @ApiProperty({ type: String, nullable: true, example: 'Accept mobile-money payments at your till' })
  requestedReason: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-29T10:00:00.000Z', description: 'a pending request expires then' })
  pendingExpiresAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-22T10:05:00.000Z' })
  activatedAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  revokedAt: string | null;

  @ApiProperty({ enum: REVOKED_BY, nullable: true, example: null })
  revokedBy: RevokedBy | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:05:00.000Z' })
  updatedAt: string;
}

/** A connection as its merchant sees it (internal merchant routes, orchestrator's partner links). */
export class MerchantConnectionViewDto extends ConnectionFieldsDto implements MerchantConnectionView {
  @ApiProperty({ example: 'Caisse Rapide POS', description: 'who asks' })
  integrationName: string;

  @ApiProperty({
    type: [String],
    example: ['Create payment orders (QR codes) in your name'],
    description: "the scopes in words, in the same order, for the merchant's screen",
  })
  scopeDescriptions: string[];
}

export class MerchantConnectionPageDto implements Page<MerchantConnectionView> {
  @ApiProperty({ type: [MerchantConnectionViewDto], description: 'newest first' })
  data: MerchantConnectionViewDto[];

  @ApiProperty(NEXT_CURSOR)
  nextCursor: string | null;
}

/** A connection as the integration sees it (public partner API, admin revoke). */
export class ConnectionDto extends ConnectionFieldsDto implements ConnectionView {
  @ApiProperty({ example: true, description: 'false for a test-mode connection' })
  livemode: boolean;
}

// ---------------------------------------------------------------------------------------------
// Integrations, keys, webhook endpoints (admin operations)
// ---------------------------------------------------------------------------------------------

export class IntegrationViewDto implements IntegrationView {
  @ApiProperty({ format: 'uuid', example: '0d8e9f1a-2b3c-4d5e-8f70-8192a3b4c5d6' })
  id: string;

  @ApiProperty({ example: 'Caisse Rapide POS' })
  name: string;

  @ApiProperty({ example: 'tech@caisse-rapide.example' })
  technicalContactEmail: string;

  @ApiProperty({ enum: ['active', 'revoked'], example: 'active' })
  status: 'active' | 'revoked';

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  revokedAt: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  updatedAt: string;
}

export class IntegrationPageDto implements Page<IntegrationView> {
  @ApiProperty({ type: [IntegrationViewDto], description: 'newest first' })
  data: IntegrationViewDto[];

  @ApiProperty(NEXT_CURSOR)
  nextCursor: string | null;
}

export class ApiKeyViewDto implements ApiKeyView {
  @ApiProperty({ format: 'uuid', example: '5c3d2e1f-0a9b-4c8d-9e7f-6a5b4c3d2e1f' })
  id: string;

  @ApiProperty({ enum: PARTNER_MODES, example: 'live' })
  mode: PartnerMode;

  @ApiProperty({ example: 'svc_sk_live_…a1B2', description: 'prefix and last four characters: enough to recognise a key, never to use it' })
  hint: string;

  @ApiProperty({
    enum: ['active', 'expiring', 'expired', 'revoked'],
    example: 'active',
    description: 'expiring: replaced by a rotation, still accepted until expiresAt',
  })
  status: ApiKeyView['status'];

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'end of the overlap after a rotation' })
  expiresAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  revokedAt: string | null;
}

export class IssuedApiKeyDto extends ApiKeyViewDto implements IssuedApiKey {
  @ApiProperty({ example: 'svc_sk_live_3kq9…', description: 'the key itself, shown this once: it cannot be read again' })
  key: string;
}

export class IssuedApiKeysDto {
  @ApiProperty({ type: IssuedApiKeyDto })
  live: IssuedApiKeyDto;

  @ApiProperty({ type: IssuedApiKeyDto })
  test: IssuedApiKeyDto;
}

export class WebhookSecretsDto {
  @ApiProperty({ example: 'whsec_…', description: 'signs live-mode webhooks; shown this once' })
  live: string;

  @ApiProperty({ example: 'whsec_…', description: 'signs test-mode webhooks; shown this once' })
  test: string;
}

export class CreatedIntegrationDto implements CreatedIntegration {
  @ApiProperty({ type: IntegrationViewDto })
  integration: IntegrationViewDto;

  @ApiProperty({ type: IssuedApiKeysDto, description: 'one live and one test key' })
  apiKeys: IssuedApiKeysDto;

  @ApiProperty({ type: WebhookSecretsDto })
  webhookSecrets: WebhookSecretsDto;
}

export class WebhookEndpointViewDto implements WebhookEndpointView {
  @ApiProperty({ enum: PARTNER_MODES, example: 'live' })
  mode: PartnerMode;

  @ApiProperty({ example: 'https://pos.caisse-rapide.example/webhooks/mm' })
  url: string;

  @ApiProperty({ enum: ['enabled', 'disabled'], example: 'enabled', description: "the dispatcher endpoint's state" })
  status: 'enabled' | 'disabled';
}

export class RotatedWebhookSecretDto implements RotatedWebhookSecret {
  @ApiProperty({ enum: PARTNER_MODES, example: 'live' })
  mode: PartnerMode;

  @ApiProperty({ example: 'whsec_…', description: 'the new signing secret, shown this once' })
  secret: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-11-23T10:00:00.000Z',
    description: 'the previous secret also signs until then',
  })
  previousSecretExpiresAt: string | null;
}

// ---------------------------------------------------------------------------------------------
// Payment anomalies
// ---------------------------------------------------------------------------------------------

export class PaymentAnomalyViewDto implements PaymentAnomalyView {
  @ApiProperty({ format: 'uuid', example: '2c4e6a8b-0d1f-4a3b-8c5d-7e9f1a2b3c4d' })
  id: string;

  @ApiProperty({
    enum: PAYMENT_ANOMALY_KINDS,
    example: 'order_expired',
    description:
      'why the payment could not pay its order: it expired, it was already paid, amount/currency/account did not match, or it was a test-mode order',
  })
  kind: PaymentAnomalyKind;

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

  @ApiProperty({ enum: PAYMENT_ANOMALY_STATUSES, example: 'open' })
  status: PaymentAnomalyStatus;

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

  @ApiProperty(NEXT_CURSOR)
  nextCursor: string | null;
}
