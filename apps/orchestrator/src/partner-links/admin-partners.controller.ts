import { Body, Controller, Get, Header, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import {
  type ApiKeyView,
  ApiKeyViewDto,
  ConnectionDto,
  type ConnectionView,
  type CreatedIntegration,
  CreatedIntegrationDto,
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
import { ApiAdminRoute, ApiErrors } from '../config-api/api-errors';
import {
  AnomaliesQueryDto,
  CreateIntegrationDto,
  IssueKeyDto,
  PageQueryDto,
  ResolveAnomalyDto,
  RotateKeyDto,
  WebhookEndpointDto,
  WebhookSecretDto,
} from './dto/partner-links.dto';
import { PartnersClient } from './partners.client';

function uuid(raw: string, notFound: ErrorCode): string {
  if (!isUuid(raw)) throw new AppException(notFound);
  return raw.toLowerCase();
}

/**
 * Administration of partner integrations (spec 1 "issuance and rotation: not shown"): creation with
 * keys and webhook secrets shown once, key issuance/rotation/revocation, webhook endpoint and secret,
 * revocation of an integration or of one connection, and the payments recorded for reversal.
 * Answers that carry a key or a secret are `Cache-Control: no-store`.
 */
@ApiTags('admin: partners')
@ApiAdminRoute('partners.manage')
@ApiErrors('VALIDATION_ERROR', 'UPSTREAM_UNAVAILABLE')
@RequirePermission('partners.manage')
@Controller('admin/partners')
export class AdminPartnersController {
  constructor(private readonly partners: PartnersClient) {}

  @Post('integrations')
  @Header('cache-control', 'no-store')
  @ApiOperation({ summary: 'Creates an integration: one live and one test API key and the two webhook secrets, shown this once' })
  @ApiCreatedResponse({ type: CreatedIntegrationDto })
  @ApiErrors('INVALID_WEBHOOK_URL', 'WEBHOOK_URL_FORBIDDEN_ADDRESS')
  create(@CurrentUser() user: AuthUser, @Body() dto: CreateIntegrationDto): Promise<CreatedIntegration> {
    return this.partners.createIntegration({ ...dto, createdBy: user.userId });
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
  @ApiOperation({ summary: 'Issues one more key of a mode (shown once)' })
  @ApiCreatedResponse({ type: IssuedApiKeyDto })
  @ApiErrors('INTEGRATION_NOT_FOUND')
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  issueKey(@CurrentUser() user: AuthUser, @Param('integrationId') id: string, @Body() dto: IssueKeyDto): Promise<IssuedApiKey> {
    return this.partners.issueApiKey(uuid(id, 'INTEGRATION_NOT_FOUND'), dto.mode, user.userId);
  }

  @Post('integrations/:integrationId/keys/:keyId/rotate')
  @Header('cache-control', 'no-store')
  @ApiOperation({ summary: 'Replaces a key (new key shown once); the old one keeps working for overlapSeconds (default 24 h)' })
  @ApiCreatedResponse({ type: IssuedApiKeyDto })
  @ApiErrors('INTEGRATION_NOT_FOUND', 'API_KEY_NOT_FOUND', 'CONFLICT')
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  @ApiParam({ name: 'keyId', format: 'uuid' })
  rotateKey(
    @CurrentUser() user: AuthUser,
    @Param('integrationId') id: string,
    @Param('keyId') keyId: string,
    @Body() dto: RotateKeyDto,
  ): Promise<IssuedApiKey> {
    return this.partners.rotateApiKey(uuid(id, 'INTEGRATION_NOT_FOUND'), uuid(keyId, 'API_KEY_NOT_FOUND'), dto.overlapSeconds, user.userId);
  }

  @Post('integrations/:integrationId/keys/:keyId/revoke')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revokes a key at once (401 INVALID_INTEGRATION_CREDENTIALS from then on)' })
  @ApiOkResponse({ type: ApiKeyViewDto })
  @ApiErrors('INTEGRATION_NOT_FOUND', 'API_KEY_NOT_FOUND')
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  @ApiParam({ name: 'keyId', format: 'uuid' })
  revokeKey(@Param('integrationId') id: string, @Param('keyId') keyId: string): Promise<ApiKeyView> {
    return this.partners.revokeApiKey(uuid(id, 'INTEGRATION_NOT_FOUND'), uuid(keyId, 'API_KEY_NOT_FOUND'));
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
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  @ApiOperation({ summary: 'New webhook signing secret (shown once); the previous one keeps signing alongside it for the overlap' })
  @ApiOkResponse({ type: RotatedWebhookSecretDto })
  @ApiErrors('INTEGRATION_NOT_FOUND')
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  rotateWebhookSecret(@Param('integrationId') id: string, @Body() dto: WebhookSecretDto): Promise<RotatedWebhookSecret> {
    return this.partners.rotateWebhookSecret(uuid(id, 'INTEGRATION_NOT_FOUND'), dto.mode);
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
