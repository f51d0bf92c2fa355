import { ApiProperty } from '@nestjs/swagger';
import type {
  ApiKeyView,
  CreatedIntegration,
  IntegrationView,
  IssuedApiKey,
  Page,
  PartnerMode,
  RotatedWebhookSecret,
  WebhookEndpointView,
} from '@mm/contracts';
import { PARTNER_MODES } from './modes';

/*
 * OpenAPI shapes of what the internal integration routes answer. Each class `implements` the
 * contract type the service returns (@mm/contracts), so a field added to the contract without
 * its documentation fails to compile.
 */

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

  @ApiProperty({ type: String, nullable: true, example: null, description: 'pass as cursor for the next page; null on the last page' })
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
