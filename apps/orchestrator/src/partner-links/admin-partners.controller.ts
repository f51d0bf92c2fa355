import { Body, Controller, Get, Header, HttpCode, Param, Post, Put, Query, Res, applyDecorators } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  type ApiKeyView,
  ApiKeyViewDto,
  ConnectionDto,
  type ConnectionView,
  IntegrationPageDto,
  type IntegrationView,
  IntegrationViewDto,
  type IssuedApiKey,
  IssuedApiKeyDto,
  type Page,
  PaymentAnomalyPageDto,
  type PaymentAnomalyView,
  PaymentAnomalyViewDto,
  type RotatedWebhookSecret,
  RotatedWebhookSecretDto,
  type WebhookEndpointView,
  WebhookEndpointViewDto,
} from '@mm/contracts';
import { AppException, type ErrorCode } from '@mm/errors';
import { isUuid } from '@mm/platform';
import { type AuthUser, CurrentUser, RequirePermission } from '../access/permissions';
import { ApprovalRequestView } from '../approvals/approval.views';
import { ApiAdminRoute, ApiErrors } from '../common/api-errors';
import {
  AnomaliesQueryDto,
  CreateIntegrationDto,
  IssueKeyDto,
  PageQueryDto,
  ResolveAnomalyDto,
  RevokeKeyDto,
  RotateKeyDto,
  WebhookEndpointDto,
  WebhookSecretDto,
} from './dto/partner-links.dto';
import { AdminPartnerKeysService, type KeyOutcome } from './admin-partner-keys.service';
import { AdminCreatedIntegrationView } from './dto/admin-integration.views';
import { PartnersClient } from '../backoffice/partners/partners.client';

function uuid(raw: string, notFound: ErrorCode): string {
  if (!isUuid(raw)) throw new AppException(notFound);
  return raw.toLowerCase();
}

const ApiAsked = () =>
  ApiResponse({
    status: 202,
    type: ApprovalRequestView,
    description:
      'asked (maker-checker): the request waits for a compliance officer or another administrator at /api/backoffice/approvals/{id}/approve; an issued key is then collected once by its maker at POST /api/backoffice/partners/key-requests/{id}/collect',
  });

const ApiFourEyesErrors = () => applyDecorators(ApiErrors('CONFLICT', 'APPROVAL_DUPLICATE_PENDING'));

/** 202 with the request while a second person has to approve; the route's own answer when carried out at once. */
function answer<T>(reply: FastifyReply, outcome: KeyOutcome<T>, status: number): ApprovalRequestView | T {
  if ('asked' in outcome) {
    reply.status(202);
    return outcome.asked;
  }
  reply.status(status);
  return outcome.done;
}

/**
 * Administration of partner integrations (docs/partners.md "Administration routes (orchestrator, permission `partners.manage`)"): creation with
 * the test key and webhook secrets shown once, webhook endpoint and secret, revocation of an
 * integration or of one connection, and the payments recorded for reversal. Live and test API keys
 * are issued, rotated and revoked, and webhook signing secrets rotated, on four eyes
 * (PARTNER_KEY_ISSUE, PARTNER_KEY_REVOKE, WEBHOOK_SECRET_ROTATE), as in the back office: one
 * administrator alone never obtains a live key or a secret that signs webhooks. Answers that carry a key or a
 * secret are `Cache-Control: no-store`.
 */
@ApiTags('admin: partners')
@ApiAdminRoute('partners.manage')
@ApiErrors('VALIDATION_ERROR', 'UPSTREAM_UNAVAILABLE')
@RequirePermission('partners.manage')
@Controller('admin/partners')
export class AdminPartnersController {
  constructor(
    private readonly partners: PartnersClient,
    private readonly keyRequests: AdminPartnerKeysService,
  ) {}

  @Post('integrations')
  @Header('cache-control', 'no-store')
  @ApiOperation({
    summary:
      'Creates an integration: its test API key and the two webhook secrets, shown this once, and the request for its first live key (PARTNER_KEY_ISSUE, four eyes)',
    description:
      'The live key is issued when a compliance officer or another administrator approves liveKeyRequest; the creator then collects it once at POST /api/backoffice/partners/key-requests/{liveKeyRequest.id}/collect. ' +
      'When APPROVALS_ONE_PERSON_ACTIONS lists PARTNER_KEY_ISSUE, the request is carried out at once and apiKeys.live holds the key, as before.',
  })
  @ApiCreatedResponse({ type: AdminCreatedIntegrationView })
  @ApiErrors('INVALID_WEBHOOK_URL', 'WEBHOOK_URL_FORBIDDEN_ADDRESS')
  create(@CurrentUser() user: AuthUser, @Body() dto: CreateIntegrationDto): Promise<AdminCreatedIntegrationView> {
    const { reason, ...body } = dto;
    return this.keyRequests.createIntegration(user, body, reason);
  }

  @Get('integrations')
  @ApiOperation({ summary: 'Integrations, newest first' })
  @ApiOkResponse({ type: IntegrationPageDto })
  list(@Query() query: PageQueryDto): Promise<Page<IntegrationView>> {
    return this.partners.integrations({ cursor: query.cursor, limit: query.limit });
  }

  @Get('integrations/:integrationId')
  @ApiOkResponse({ type: IntegrationViewDto })
  @ApiErrors('INTEGRATION_NOT_FOUND')
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  get(@Param('integrationId') id: string): Promise<IntegrationView> {
    return this.partners.integration(uuid(id, 'INTEGRATION_NOT_FOUND'));
  }

  @Post('integrations/:integrationId/revoke')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Revokes the integration: its keys get 401 INTEGRATION_REVOKED, its open connections are revoked (revokedBy admin)',
  })
  @ApiOkResponse({ type: IntegrationViewDto })
  @ApiErrors('INTEGRATION_NOT_FOUND')
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  revoke(@CurrentUser() user: AuthUser, @Param('integrationId') id: string): Promise<IntegrationView> {
    return this.partners.revokeIntegration(uuid(id, 'INTEGRATION_NOT_FOUND'), user.userId);
  }

  @Get('integrations/:integrationId/keys')
  @ApiOperation({ summary: 'API keys of the integration (hints only)' })
  @ApiOkResponse({ type: [ApiKeyViewDto] })
  @ApiErrors('INTEGRATION_NOT_FOUND')
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  keys(@Param('integrationId') id: string): Promise<ApiKeyView[]> {
    return this.partners.apiKeys(uuid(id, 'INTEGRATION_NOT_FOUND'));
  }

  @Post('integrations/:integrationId/keys')
  @Header('cache-control', 'no-store')
  @ApiOperation({
    summary: 'Asks for one more key of a mode (PARTNER_KEY_ISSUE, four eyes), as POST /api/backoffice/partners/integrations/{id}/keys does',
  })
  @ApiAsked()
  @ApiCreatedResponse({
    type: IssuedApiKeyDto,
    description: 'issued at once (PARTNER_KEY_ISSUE configured one-person): the key, shown this once',
  })
  @ApiErrors('INTEGRATION_NOT_FOUND')
  @ApiFourEyesErrors()
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  async issueKey(
    @CurrentUser() user: AuthUser,
    @Param('integrationId') id: string,
    @Body() dto: IssueKeyDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApprovalRequestView | IssuedApiKey> {
    return answer(reply, await this.keyRequests.issue(user, uuid(id, 'INTEGRATION_NOT_FOUND'), dto.mode, dto.reason), 201);
  }

  @Post('integrations/:integrationId/keys/:keyId/rotate')
  @Header('cache-control', 'no-store')
  @ApiOperation({
    summary:
      'Asks for the replacement of a key (PARTNER_KEY_ISSUE with replacesKeyId, four eyes); once approved the old one keeps working for overlapSeconds (default 24 h)',
  })
  @ApiAsked()
  @ApiCreatedResponse({
    type: IssuedApiKeyDto,
    description: 'replaced at once (PARTNER_KEY_ISSUE configured one-person): the new key, shown this once',
  })
  @ApiErrors('INTEGRATION_NOT_FOUND', 'API_KEY_NOT_FOUND')
  @ApiFourEyesErrors()
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  @ApiParam({ name: 'keyId', format: 'uuid' })
  async rotateKey(
    @CurrentUser() user: AuthUser,
    @Param('integrationId') id: string,
    @Param('keyId') keyId: string,
    @Body() dto: RotateKeyDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApprovalRequestView | IssuedApiKey> {
    const integrationId = uuid(id, 'INTEGRATION_NOT_FOUND');
    const rotated = await this.keyRequests.rotate(user, integrationId, uuid(keyId, 'API_KEY_NOT_FOUND'), dto.overlapSeconds, dto.reason);
    return answer(reply, rotated, 201);
  }

  @Post('integrations/:integrationId/keys/:keyId/revoke')
  @ApiOperation({
    summary:
      'Asks for the revocation of a key (PARTNER_KEY_REVOKE, four eyes): from its approval on, the key gets 401 INVALID_INTEGRATION_CREDENTIALS',
  })
  @ApiAsked()
  @ApiOkResponse({
    type: ApiKeyViewDto,
    description: 'revoked at once (PARTNER_KEY_REVOKE configured one-person), or already revoked: the key (hint only)',
  })
  @ApiErrors('INTEGRATION_NOT_FOUND', 'API_KEY_NOT_FOUND')
  @ApiFourEyesErrors()
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  @ApiParam({ name: 'keyId', format: 'uuid' })
  async revokeKey(
    @CurrentUser() user: AuthUser,
    @Param('integrationId') id: string,
    @Param('keyId') keyId: string,
    @Body() dto: RevokeKeyDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApprovalRequestView | ApiKeyView> {
    const revoked = await this.keyRequests.revoke(user, uuid(id, 'INTEGRATION_NOT_FOUND'), uuid(keyId, 'API_KEY_NOT_FOUND'), dto.reason);
    return answer(reply, revoked, 200);
  }

  @Put('integrations/:integrationId/webhook-endpoint')
  @ApiOperation({ summary: 'Points the live or test webhook endpoint at a new URL (its secret is unchanged)' })
  @ApiOkResponse({ type: WebhookEndpointViewDto })
  @ApiErrors('INTEGRATION_NOT_FOUND', 'INVALID_WEBHOOK_URL', 'WEBHOOK_URL_FORBIDDEN_ADDRESS')
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  setWebhookEndpoint(@Param('integrationId') id: string, @Body() dto: WebhookEndpointDto): Promise<WebhookEndpointView> {
    return this.partners.setWebhookEndpoint(uuid(id, 'INTEGRATION_NOT_FOUND'), dto.mode, dto.url);
  }

  @Post('integrations/:integrationId/webhook-secret/rotate')
  @Header('cache-control', 'no-store')
  @ApiOperation({
    summary:
      'Asks for a new webhook signing secret (WEBHOOK_SECRET_ROTATE, four eyes), as POST /api/backoffice/partners/integrations/{id}/webhook-secret/rotate does',
    description:
      'Once approved, the previous secret keeps signing alongside the new one for the overlap, and the maker collects the new secret once at ' +
      'POST /api/backoffice/partners/secret-requests/{id}/collect. When APPROVALS_ONE_PERSON_ACTIONS lists WEBHOOK_SECRET_ROTATE, the rotation ' +
      'is carried out at once and answered 200 with the secret, as before.',
  })
  @ApiResponse({
    status: 202,
    type: ApprovalRequestView,
    description:
      'asked (maker-checker): the request waits for a compliance officer or another administrator; the maker then collects the secret once at POST /api/backoffice/partners/secret-requests/{id}/collect',
  })
  @ApiOkResponse({
    type: RotatedWebhookSecretDto,
    description: 'rotated at once (WEBHOOK_SECRET_ROTATE configured one-person): the new secret, shown this once',
  })
  @ApiErrors('INTEGRATION_NOT_FOUND')
  @ApiFourEyesErrors()
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  async rotateWebhookSecret(
    @CurrentUser() user: AuthUser,
    @Param('integrationId') id: string,
    @Body() dto: WebhookSecretDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApprovalRequestView | RotatedWebhookSecret> {
    const rotated = await this.keyRequests.rotateWebhookSecret(user, uuid(id, 'INTEGRATION_NOT_FOUND'), dto.mode, dto.reason);
    return answer(reply, rotated, 200);
  }

  @Post('connections/:connectionId/revoke')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revokes a pending or active connection (revokedBy admin)' })
  @ApiOkResponse({ type: ConnectionDto, description: 'the connection as the integration sees it' })
  @ApiErrors('CONNECTION_NOT_FOUND', 'CONFLICT')
  @ApiParam({ name: 'connectionId', format: 'uuid' })
  revokeConnection(@CurrentUser() user: AuthUser, @Param('connectionId') id: string): Promise<ConnectionView> {
    return this.partners.adminRevokeConnection(uuid(id, 'CONNECTION_NOT_FOUND'), user.userId);
  }

  @Get('payment-anomalies')
  @ApiOperation({ summary: 'Payments that could not pay their order (expired, already paid, mismatched): to reverse (docs/partners.md)' })
  @ApiOkResponse({ type: PaymentAnomalyPageDto })
  anomalies(@Query() query: AnomaliesQueryDto): Promise<Page<PaymentAnomalyView>> {
    return this.partners.paymentAnomalies({ status: query.status, cursor: query.cursor, limit: query.limit });
  }

  @Post('payment-anomalies/:anomalyId/resolve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Records how the payment was settled (typically the reference of the reversal)' })
  @ApiOkResponse({ type: PaymentAnomalyViewDto, description: 'the anomaly, resolved' })
  @ApiErrors('PAYMENT_ANOMALY_NOT_FOUND', 'CONFLICT')
  @ApiParam({ name: 'anomalyId', format: 'uuid' })
  resolveAnomaly(
    @CurrentUser() user: AuthUser,
    @Param('anomalyId') id: string,
    @Body() dto: ResolveAnomalyDto,
  ): Promise<PaymentAnomalyView> {
    return this.partners.resolvePaymentAnomaly(uuid(id, 'PAYMENT_ANOMALY_NOT_FOUND'), dto.resolution, user.userId);
  }
}
