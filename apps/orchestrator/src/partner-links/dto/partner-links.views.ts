import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CONNECTION_STATUSES, PARTNER_SCOPES } from '@mm/contracts';

/** OpenAPI shapes of what the partner-link routes answer (the data comes from the partners service). */
export class MerchantConnectionViewDto {
  @ApiProperty({ format: 'uuid', example: '7b1f3c1e-55a4-4c1e-9d0e-2f6d0c9b8a11' })
  id: string;
  @ApiProperty({ format: 'uuid', example: '0d8e9f1a-2b3c-4d5e-8f70-8192a3b4c5d6' })
  integrationId: string;
  @ApiProperty({ example: 'Caisse Rapide POS', description: 'who asks' })
  integrationName: string;
  @ApiProperty({ format: 'uuid', example: '3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c' })
  merchantId: string;
  @ApiProperty({ enum: CONNECTION_STATUSES, example: 'pending' })
  status: string;
  @ApiProperty({ isArray: true, enum: PARTNER_SCOPES, example: ['orders.write'] })
  scopes: string[];
  @ApiProperty({ type: [String], example: ['Create payment orders (QR codes) in your name'], description: 'the scopes in words' })
  scopeDescriptions: string[];
  @ApiProperty({ nullable: true, type: String, example: 'Accept mobile-money payments at your till' })
  requestedReason: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-29T10:00:00.000Z' })
  pendingExpiresAt: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, example: null })
  activatedAt: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, example: null })
  revokedAt: string | null;
  @ApiProperty({ enum: ['merchant', 'integration', 'admin', 'system'], nullable: true, example: null })
  revokedBy: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  updatedAt: string;
}

export class MerchantConnectionPageDto {
  @ApiProperty({ type: [MerchantConnectionViewDto] })
  data: MerchantConnectionViewDto[];
  @ApiProperty({ nullable: true, type: String, example: null })
  nextCursor: string | null;
}

export class IntegrationViewDto {
  @ApiProperty({ format: 'uuid', example: '0d8e9f1a-2b3c-4d5e-8f70-8192a3b4c5d6' })
  id: string;
  @ApiProperty({ example: 'Caisse Rapide POS' })
  name: string;
  @ApiProperty({ example: 'tech@caisse-rapide.example' })
  technicalContactEmail: string;
  @ApiProperty({ enum: ['active', 'revoked'], example: 'active' })
  status: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, example: null })
  revokedAt: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  updatedAt: string;
}

export class ApiKeyViewDto {
  @ApiProperty({ format: 'uuid', example: '5c3d2e1f-0a9b-4c8d-9e7f-6a5b4c3d2e1f' })
  id: string;
  @ApiProperty({ enum: ['live', 'test'], example: 'live' })
  mode: string;
  @ApiProperty({ example: 'svc_sk_live_…a1B2', description: 'prefix and last four characters: never the key' })
  hint: string;
  @ApiProperty({ enum: ['active', 'expiring', 'expired', 'revoked'], example: 'active' })
  status: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, example: null, description: 'end of the overlap after a rotation' })
  expiresAt: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, example: null })
  revokedAt: string | null;
}

export class IssuedApiKeyDto extends ApiKeyViewDto {
  @ApiProperty({ example: 'svc_sk_live_3kq9…(49 characters)', description: 'shown once: store it now, it cannot be read again' })
  key: string;
}

class IssuedKeysDto {
  @ApiProperty({ type: IssuedApiKeyDto })
  live: IssuedApiKeyDto;
  @ApiProperty({ type: IssuedApiKeyDto })
  test: IssuedApiKeyDto;
}

class WebhookSecretsDto {
  @ApiProperty({ example: 'whsec_…', description: 'signs live-mode webhooks; shown once' })
  live: string;
  @ApiProperty({ example: 'whsec_…', description: 'signs test-mode webhooks; shown once' })
  test: string;
}

export class CreatedIntegrationDto {
  @ApiProperty({ type: IntegrationViewDto })
  integration: IntegrationViewDto;
  @ApiProperty({ type: IssuedKeysDto })
  apiKeys: IssuedKeysDto;
  @ApiProperty({ type: WebhookSecretsDto })
  webhookSecrets: WebhookSecretsDto;
}

export class RotatedWebhookSecretDto {
  @ApiProperty({ enum: ['live', 'test'], example: 'live' })
  mode: string;
  @ApiProperty({ example: 'whsec_…', description: 'shown once' })
  secret: string;
  @ApiPropertyOptional({
    format: 'date-time',
    nullable: true,
    type: String,
    example: '2026-11-23T10:00:00.000Z',
    description: 'the previous secret also signs until then',
  })
  previousSecretExpiresAt: string | null;
}
