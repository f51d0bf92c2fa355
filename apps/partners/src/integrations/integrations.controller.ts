import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  type ApiKeyView,
  ApiKeyViewDto,
  type CreatedIntegration,
  CreatedIntegrationDto,
  IntegrationPageDto,
  type IntegrationView,
  IntegrationViewDto,
  type IssuedApiKey,
  IssuedApiKeyDto,
  type Page,
  type RotatedWebhookSecret,
  RotatedWebhookSecretDto,
  type WebhookEndpointView,
  WebhookEndpointViewDto,
} from '@mm/contracts';
import { ServiceKeyGuard, ApiErrors } from '@mm/platform';
import { ListQueryDto } from '../common/list-query.dto';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { ApiKeysService } from '../keys/api-keys.service';
import {
  AdminActionDto,
  CreateIntegrationDto,
  IssueApiKeyDto,
  RotateApiKeyDto,
  RotateWebhookSecretDto,
  WebhookEndpointDto,
} from './dto/integration.dto';
import { IntegrationsService } from './integrations.service';

const id = () => new UuidParamPipe('integrationId', 'INTEGRATION_NOT_FOUND');

/** Internal (service key): what the orchestrator's admin routes call. Keys and secrets appear in answers exactly once. */
@ApiTags('internal: integrations')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS', 'VALIDATION_ERROR')
@Controller('internal/partners/integrations')
@UseGuards(ServiceKeyGuard)
export class IntegrationsController {
  constructor(
    private readonly integrations: IntegrationsService,
    private readonly keys: ApiKeysService,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Creates an integration with one live and one test key and its two webhook endpoints (secrets shown once)' })
  @ApiCreatedResponse({ type: CreatedIntegrationDto })
  @ApiErrors('INVALID_WEBHOOK_URL', 'WEBHOOK_URL_FORBIDDEN_ADDRESS', 'UPSTREAM_UNAVAILABLE')
  create(@Body() dto: CreateIntegrationDto): Promise<CreatedIntegration> {
    return this.integrations.create(dto);
  }

  @Get()
  @ApiOperation({ summary: 'Integrations, newest first' })
  @ApiOkResponse({ type: IntegrationPageDto })
  list(@Query() query: ListQueryDto): Promise<Page<IntegrationView>> {
    return this.integrations.list(query.cursor, query.limit ?? 20);
  }

  @Get(':integrationId')
  @ApiOkResponse({ type: IntegrationViewDto })
  @ApiErrors('INTEGRATION_NOT_FOUND')
  get(@Param('integrationId', id()) integrationId: string): Promise<IntegrationView> {
    return this.integrations.get(integrationId);
  }

  @Post(':integrationId/revoke')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revokes the integration: its keys answer 401 INTEGRATION_REVOKED, its open connections are revoked by admin' })
  @ApiOkResponse({ type: IntegrationViewDto })
  @ApiErrors('INTEGRATION_NOT_FOUND')
  revoke(@Param('integrationId', id()) integrationId: string, @Body() dto: AdminActionDto): Promise<IntegrationView> {
    return this.integrations.revoke(integrationId, dto.actorId);
  }

  @Get(':integrationId/keys')
  @ApiOperation({ summary: 'Keys of the integration (hints only, never the key)' })
  @ApiOkResponse({ type: [ApiKeyViewDto] })
  @ApiErrors('INTEGRATION_NOT_FOUND')
  async listKeys(@Param('integrationId', id()) integrationId: string): Promise<ApiKeyView[]> {
    await this.integrations.get(integrationId);
    return this.keys.list(integrationId);
  }

  @Post(':integrationId/keys')
  @ApiOperation({ summary: 'Issues an additional key of a mode (shown once)' })
  @ApiCreatedResponse({ type: IssuedApiKeyDto })
  @ApiErrors('INTEGRATION_NOT_FOUND')
  issueKey(@Param('integrationId', id()) integrationId: string, @Body() dto: IssueApiKeyDto): Promise<IssuedApiKey> {
    return this.keys.issue(integrationId, dto.mode, dto.createdBy);
  }

  @Post(':integrationId/keys/:keyId/rotate')
  @ApiOperation({ summary: 'Issues a replacement key (shown once); the old key works for overlapSeconds more' })
  @ApiCreatedResponse({ type: IssuedApiKeyDto })
  @ApiErrors('API_KEY_NOT_FOUND', 'CONFLICT')
  rotateKey(
    @Param('integrationId', id()) integrationId: string,
    @Param('keyId', new UuidParamPipe('keyId', 'API_KEY_NOT_FOUND')) keyId: string,
    @Body() dto: RotateApiKeyDto,
  ): Promise<IssuedApiKey> {
    return this.keys.rotate(integrationId, keyId, dto.overlapSeconds, dto.createdBy);
  }

  @Post(':integrationId/keys/:keyId/revoke')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revokes a key at once (401 INVALID_INTEGRATION_CREDENTIALS from then on)' })
  @ApiOkResponse({ type: ApiKeyViewDto })
  @ApiErrors('API_KEY_NOT_FOUND')
  revokeKey(
    @Param('integrationId', id()) integrationId: string,
    @Param('keyId', new UuidParamPipe('keyId', 'API_KEY_NOT_FOUND')) keyId: string,
  ): Promise<ApiKeyView> {
    return this.keys.revoke(integrationId, keyId);
  }

  @Put(':integrationId/webhook-endpoint')
  @ApiOperation({ summary: 'Points the live or test webhook endpoint at a new URL (the secret is unchanged)' })
  @ApiOkResponse({ type: WebhookEndpointViewDto })
  @ApiErrors('INTEGRATION_NOT_FOUND', 'INVALID_WEBHOOK_URL', 'WEBHOOK_URL_FORBIDDEN_ADDRESS', 'UPSTREAM_UNAVAILABLE')
  setWebhookEndpoint(@Param('integrationId', id()) integrationId: string, @Body() dto: WebhookEndpointDto): Promise<WebhookEndpointView> {
    return this.integrations.setWebhookUrl(integrationId, dto.mode, dto.url);
  }

  @Post(':integrationId/webhook-secret/rotate')
  @HttpCode(200)
  @ApiOperation({ summary: 'New signing secret (shown once); the previous one keeps signing during the dispatcher overlap' })
  @ApiOkResponse({ type: RotatedWebhookSecretDto })
  @ApiErrors('INTEGRATION_NOT_FOUND', 'UPSTREAM_UNAVAILABLE')
  rotateWebhookSecret(
    @Param('integrationId', id()) integrationId: string,
    @Body() dto: RotateWebhookSecretDto,
  ): Promise<RotatedWebhookSecret> {
    return this.integrations.rotateWebhookSecret(integrationId, dto.mode);
  }
}
