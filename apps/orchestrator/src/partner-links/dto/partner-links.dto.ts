import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsInt, IsString, IsUrl, Length, Max, MaxLength, Min } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { PageQuery } from '../../backoffice/partners/backoffice-partners.dto';
import { APPROVAL_REASON_MAX, APPROVAL_REASON_MIN, ApprovalReason } from '../../common/approval-reason';
import {
  CONNECTION_STATUSES,
  type ConnectionStatus,
  PARTNER_MODES,
  PAYMENT_ANOMALY_STATUSES,
  type PartnerMode,
  type PaymentAnomalyStatus,
} from '@mm/contracts';

/** Cursor and limit of a partners page: the back office's partner pages read them alike. */
export { PageQuery as PageQueryDto };

const URL_RULE = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };

/** The reason kept with the maker-checker request a key route makes (optional here: these routes had none). */
class KeyRequestReason {
  @ApiPropertyOptional({
    example: 'Partner onboarding agreed, ticket 4821',
    minLength: APPROVAL_REASON_MIN,
    maxLength: APPROVAL_REASON_MAX,
    description: 'why, shown to the checker (field code INVALID_REASON); a generic one when absent',
  })
  @OptionalField()
  @ApprovalReason()
  reason?: string;
}

export class MerchantConnectionsQueryDto extends PageQuery {
  @ApiPropertyOptional({ enum: CONNECTION_STATUSES, example: 'pending', description: 'default: pending and active' })
  @OptionalField()
  @IsIn(CONNECTION_STATUSES, { context: { code: 'INVALID_STATUS' } })
  status?: ConnectionStatus;
}

export class AnomaliesQueryDto extends PageQuery {
  @ApiPropertyOptional({ enum: PAYMENT_ANOMALY_STATUSES, example: 'open' })
  @OptionalField()
  @IsIn(PAYMENT_ANOMALY_STATUSES, { context: { code: 'INVALID_STATUS' } })
  status?: PaymentAnomalyStatus;
}

export class CreateIntegrationDto extends KeyRequestReason {
  @ApiProperty({ example: 'Caisse Rapide POS', minLength: 1, maxLength: 120 })
  @IsString()
  @Length(1, 120)
  name: string;

  @ApiProperty({
    example: 'tech@caisse-rapide.example',
    maxLength: 254,
    description: 'receives deprecation and incident notices (field code INVALID_EMAIL)',
  })
  @MaxLength(254, { context: { code: 'INVALID_EMAIL' } })
  @IsEmail({}, { context: { code: 'INVALID_EMAIL' } })
  technicalContactEmail: string;

  @ApiProperty({
    example: 'https://pos.caisse-rapide.example/webhooks/mm',
    maxLength: 2048,
    description: 'receives live-mode events (https in production)',
  })
  @MaxLength(2048, { context: { code: 'INVALID_WEBHOOK_URL' } })
  @IsUrl(URL_RULE, { context: { code: 'INVALID_WEBHOOK_URL' } })
  webhookUrl: string;

  @ApiPropertyOptional({
    example: 'https://staging.caisse-rapide.example/webhooks/mm',
    maxLength: 2048,
    description: 'receives test-mode events; default webhookUrl',
  })
  @OptionalField()
  @MaxLength(2048, { context: { code: 'INVALID_WEBHOOK_URL' } })
  @IsUrl(URL_RULE, { context: { code: 'INVALID_WEBHOOK_URL' } })
  testWebhookUrl?: string;
}

export class IssueKeyDto extends KeyRequestReason {
  @ApiProperty({ enum: PARTNER_MODES, example: 'live' })
  @IsIn(PARTNER_MODES, { context: { code: 'INVALID_MODE' } })
  mode: PartnerMode;
}

export class RotateKeyDto extends KeyRequestReason {
  @ApiPropertyOptional({ example: 86400, minimum: 0, maximum: 2592000, description: 'how long the old key keeps working; default 24 h' })
  @OptionalField()
  @IsInt({ context: { code: 'INVALID_OVERLAP' } })
  @Min(0, { context: { code: 'INVALID_OVERLAP' } })
  @Max(30 * 86_400, { context: { code: 'INVALID_OVERLAP' } })
  overlapSeconds?: number;
}

export class RevokeKeyDto extends KeyRequestReason {}

export class WebhookEndpointDto {
  @ApiProperty({ enum: PARTNER_MODES, example: 'live' })
  @IsIn(PARTNER_MODES, { context: { code: 'INVALID_MODE' } })
  mode: PartnerMode;

  @ApiProperty({ example: 'https://pos.caisse-rapide.example/webhooks/mm', maxLength: 2048 })
  @MaxLength(2048, { context: { code: 'INVALID_WEBHOOK_URL' } })
  @IsUrl(URL_RULE, { context: { code: 'INVALID_WEBHOOK_URL' } })
  url: string;
}

export class WebhookSecretDto extends KeyRequestReason {
  @ApiProperty({ enum: PARTNER_MODES, example: 'live' })
  @IsIn(PARTNER_MODES, { context: { code: 'INVALID_MODE' } })
  mode: PartnerMode;
}

export class ResolveAnomalyDto {
  @ApiProperty({ example: 'Reversed by MMPTX2611220K7Q2ZP (refund to the payer)', minLength: 1, maxLength: 1000 })
  @IsString()
  @Length(1, 1000)
  resolution: string;
}
