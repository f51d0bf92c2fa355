import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsInt, IsString, IsUrl, Length, Max, MaxLength, Min } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { PARTNER_MODES } from '@mm/contracts';

const URL_RULE = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };

export class CreateIntegrationDto {
  @ApiProperty({ example: 'Caisse Rapide POS', minLength: 1, maxLength: 120 })
  @IsString()
  @Length(1, 120)
  name: string;

  @ApiProperty({ example: 'tech@caisse-rapide.example', maxLength: 254, description: 'receives deprecation and incident notices' })
  @IsEmail({}, { context: { code: 'INVALID_EMAIL' } })
  @MaxLength(254)
  technicalContactEmail: string;

  @ApiProperty({
    example: 'https://pos.caisse-rapide.example/webhooks/mm',
    maxLength: 2048,
    description: 'receives live-mode events (https in production)',
  })
  @IsUrl(URL_RULE, { context: { code: 'INVALID_WEBHOOK_URL' } })
  @MaxLength(2048, { context: { code: 'INVALID_WEBHOOK_URL' } })
  webhookUrl: string;

  @ApiPropertyOptional({
    example: 'https://staging.caisse-rapide.example/webhooks/mm',
    maxLength: 2048,
    description: 'receives test-mode events; default webhookUrl',
  })
  @OptionalField()
  @IsUrl(URL_RULE, { context: { code: 'INVALID_WEBHOOK_URL' } })
  @MaxLength(2048, { context: { code: 'INVALID_WEBHOOK_URL' } })
  testWebhookUrl?: string;

  @ApiProperty({ example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', maxLength: 200, description: 'the admin user creating it (audit)' })
  @IsString()
  @Length(1, 200)
  createdBy: string;
}

export class IssueApiKeyDto {
  @ApiProperty({ enum: PARTNER_MODES, example: 'live' })
  @IsIn(PARTNER_MODES, { context: { code: 'INVALID_MODE' } })
  mode: 'live' | 'test';

  @ApiProperty({ example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', maxLength: 200 })
  @IsString()
  @Length(1, 200)
  createdBy: string;
}

export class RotateApiKeyDto {
  @ApiPropertyOptional({ example: 86400, minimum: 0, maximum: 2592000, description: 'how long the old key keeps working; default 24 h' })
  @OptionalField()
  @IsInt({ context: { code: 'INVALID_OVERLAP' } })
  @Min(0, { context: { code: 'INVALID_OVERLAP' } })
  @Max(30 * 86_400, { context: { code: 'INVALID_OVERLAP' } })
  overlapSeconds?: number;

  @ApiProperty({ example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', maxLength: 200 })
  @IsString()
  @Length(1, 200)
  createdBy: string;
}

export class WebhookEndpointDto {
  @ApiProperty({ enum: PARTNER_MODES, example: 'live' })
  @IsIn(PARTNER_MODES, { context: { code: 'INVALID_MODE' } })
  mode: 'live' | 'test';

  @ApiProperty({ example: 'https://pos.caisse-rapide.example/webhooks/mm', maxLength: 2048 })
  @IsUrl(URL_RULE, { context: { code: 'INVALID_WEBHOOK_URL' } })
  @MaxLength(2048, { context: { code: 'INVALID_WEBHOOK_URL' } })
  url: string;
}

export class RotateWebhookSecretDto {
  @ApiProperty({ enum: PARTNER_MODES, example: 'live' })
  @IsIn(PARTNER_MODES, { context: { code: 'INVALID_MODE' } })
  mode: 'live' | 'test';
}

export class ResolveAnomalyDto {
  @ApiProperty({ example: 'Reversed by MMPTX2611220K7Q2ZP (refund to the payer)', minLength: 1, maxLength: 1000 })
  @IsString()
  @Length(1, 1000)
  resolution: string;

  @ApiProperty({ example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', maxLength: 200 })
  @IsString()
  @Length(1, 200)
  resolvedBy: string;
}

export class AdminActionDto {
  @ApiProperty({ example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', maxLength: 200, description: 'the admin user acting (audit)' })
  @IsString()
  @Length(1, 200)
  actorId: string;
}
