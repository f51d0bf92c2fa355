import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import {
  ApiKeyViewDto,
  CONNECTION_STATUSES,
  type ConnectionStatus,
  IntegrationSummaryDto,
  PARTNER_MODES,
  type PartnerMode,
  WebhookEndpointStateDto,
} from '@mm/contracts';
import { OptionalField } from '@mm/errors';
import { APPROVAL_REASON_MAX, APPROVAL_REASON_MIN, ApprovalReason } from '../../common/approval-reason';

export class ReasonDto {
  @ApiProperty({
    example: 'Key leaked in a support ticket (INC-2291)',
    minLength: APPROVAL_REASON_MIN,
    maxLength: APPROVAL_REASON_MAX,
    description: 'kept with the approval request; not blank (field code INVALID_REASON)',
  })
  @ApprovalReason()
  reason: string;
}

export class RequestKeyDto extends ReasonDto {
  @ApiProperty({ enum: PARTNER_MODES, example: 'live' })
  @IsIn(PARTNER_MODES, { context: { code: 'INVALID_MODE' } })
  mode: PartnerMode;

  @ApiPropertyOptional({
    format: 'uuid',
    example: '5c3d2e1f-0a9b-4c8d-9e7f-6a5b4c3d2e1f',
    description: 'a rotation: the key the new one replaces',
  })
  @OptionalField()
  @IsUUID()
  replacesKeyId?: string;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: 2_592_000,
    example: 86400,
    description: 'with replacesKeyId: how long the replaced key keeps working (default 24 h); ignored without it',
  })
  @OptionalField()
  @IsInt({ context: { code: 'INVALID_OVERLAP' } })
  @Min(0, { context: { code: 'INVALID_OVERLAP' } })
  @Max(30 * 86_400, { context: { code: 'INVALID_OVERLAP' } })
  overlapSeconds?: number;
}

export class PageQuery {
  @ApiPropertyOptional({
    description: 'nextCursor of the previous page',
    maxLength: 200,
    example: 'MjAyNi0xMS0yMlQxMDowMDowMC4wMDBafDdiMGU0ZjlhLTFiMmQtNGUzZi04YTViLTZjN2Q4ZTlmMGExYg',
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_CURSOR' } })
  @MaxLength(200, { context: { code: 'INVALID_CURSOR' } })
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20, example: 20 })
  @OptionalField()
  @Type(() => Number)
  @IsInt({ context: { code: 'INVALID_LIMIT' } })
  @Min(1, { context: { code: 'INVALID_LIMIT' } })
  @Max(100, { context: { code: 'INVALID_LIMIT' } })
  limit?: number;
}

export class ConnectionsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: CONNECTION_STATUSES, example: 'active' })
  @OptionalField()
  @IsIn(CONNECTION_STATUSES, { context: { code: 'INVALID_STATUS' } })
  status?: ConnectionStatus;

  @ApiPropertyOptional({ enum: PARTNER_MODES, example: 'live', description: 'both modes when absent' })
  @OptionalField()
  @IsIn(PARTNER_MODES)
  mode?: PartnerMode;
}

/** One integration on one page: what it is, its keys (hints only), its two webhook endpoints. */
export class IntegrationDetailView {
  @ApiProperty({ type: IntegrationSummaryDto })
  integration: IntegrationSummaryDto;

  @ApiProperty({ type: [ApiKeyViewDto], description: 'every key, hints only' })
  keys: ApiKeyViewDto[];

  @ApiProperty({ type: [WebhookEndpointStateDto] })
  endpoints: WebhookEndpointStateDto[];
}

export class RotateWebhookSecretDto extends ReasonDto {
  @ApiProperty({ enum: PARTNER_MODES, example: 'live', description: 'the live or the test webhooks' })
  @IsIn(PARTNER_MODES, { context: { code: 'INVALID_MODE' } })
  mode: PartnerMode;
}
