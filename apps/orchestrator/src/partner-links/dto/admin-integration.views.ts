import { ApiProperty } from '@nestjs/swagger';
import { IntegrationViewDto, IssuedApiKeyDto, WebhookSecretsDto } from '@mm/contracts';
import { ApprovalRequestView } from '../../approvals/approval.views';

export class AdminIssuedApiKeysView {
  @ApiProperty({ type: IssuedApiKeyDto, description: 'the test key (test mode moves no money), shown this once' })
  test: IssuedApiKeyDto;

  @ApiProperty({
    type: IssuedApiKeyDto,
    nullable: true,
    description:
      'the live key, shown this once, only when configuration lets PARTNER_KEY_ISSUE run on one pair of eyes; otherwise null: it is issued when a compliance officer or another administrator approves liveKeyRequest, and its maker collects it once at POST /api/backoffice/partners/key-requests/{liveKeyRequest.id}/collect',
  })
  live: IssuedApiKeyDto | null;
}

/** A new integration as the administration route answers it: the live key waits for a second person. */
export class AdminCreatedIntegrationView {
  @ApiProperty({ type: IntegrationViewDto })
  integration: IntegrationViewDto;

  @ApiProperty({ type: AdminIssuedApiKeysView })
  apiKeys: AdminIssuedApiKeysView;

  @ApiProperty({ type: WebhookSecretsDto })
  webhookSecrets: WebhookSecretsDto;

  @ApiProperty({
    type: ApprovalRequestView,
    nullable: true,
    description:
      'the PARTNER_KEY_ISSUE request for the first live key, made in the creator’s name: PENDING, or EXECUTED when configured one-person. null only when it could not be recorded (the error is logged): ask again at POST /api/backoffice/partners/integrations/{id}/keys',
  })
  liveKeyRequest: ApprovalRequestView | null;
}
