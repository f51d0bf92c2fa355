import { Body, Controller, Get, Header, Param, Post, Query, Res, applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  type IntegrationSummary,
  IntegrationSummaryPageDto,
  type IssuedApiKey,
  IssuedApiKeyDto,
  type Page,
  type RotatedWebhookSecret,
  RotatedWebhookSecretDto,
  StaffConnectionPageDto,
  type StaffConnectionView,
} from '@mm/contracts';
import { type AuthUser, CurrentUser, RequirePermission } from '../../access/permissions';
import { ApprovalRequestView } from '../../approvals/approval.views';
import { uuid } from '../../common/validators';
import { ApiAdminRoute, ApiErrors } from '../../common/api-errors';
import { PartnersClient } from './partners.client';
import { AuditedRead } from '../../staff-audit/audit-metadata';
import { WebhookOperationsClient } from '../webhooks/webhook-operations.client';
import { WebhookOperationsService } from '../webhooks/webhook-operations.service';
import {
  ConnectionsQuery,
  IntegrationDetailView,
  PageQuery,
  ReasonDto,
  RequestKeyDto,
  RotateWebhookSecretDto,
} from './backoffice-partners.dto';
import { PartnerKeysService } from './partner-keys.service';

const ApiSubmitted = () =>
  applyDecorators(
    ApiResponse({
      status: 202,
      type: ApprovalRequestView,
      description: 'asked: the request waits for a compliance officer or another administrator (PENDING)',
    }),
    ApiResponse({
      status: 200,
      type: ApprovalRequestView,
      description: 'decided at once: configuration lets this action run on one pair of eyes (EXECUTED, or FAILED with the reason)',
    }),
  );

function submitted(reply: FastifyReply, request: ApprovalRequestView): ApprovalRequestView {
  reply.status(request.status === 'PENDING' ? 202 : 200);
  return request;
}

/**
 * Partner integrations for staff: the list with connections, one integration with its keys and
 * endpoints, its connections to merchants, and API keys issued, replaced or revoked and webhook
 * signing secrets rotated on four eyes. Creating an integration, pointing its webhooks at a new
 * URL and revoking an integration or a connection stay on `/api/admin/partners` (`partners.manage`).
 */
@ApiTags('back office: partners')
@ApiErrors('VALIDATION_ERROR', 'UPSTREAM_UNAVAILABLE')
@Controller('backoffice/partners')
export class BackofficePartnersController {
  constructor(
    private readonly client: WebhookOperationsClient,
    private readonly webhooks: WebhookOperationsService,
    private readonly partners: PartnersClient,
    private readonly keys: PartnerKeysService,
  ) {}

  @Get('integrations')
  @RequirePermission('operations.read')
  @ApiAdminRoute('operations.read')
  @ApiOperation({ summary: 'Integrations with their webhook endpoints and live connection counts, newest first' })
  @ApiOkResponse({ type: IntegrationSummaryPageDto })
  list(@Query() query: PageQuery): Promise<Page<IntegrationSummary>> {
    return this.client.integrations({ cursor: query.cursor, limit: query.limit });
  }

  @Get('integrations/:integrationId')
  @RequirePermission('operations.read')
  @ApiAdminRoute('operations.read')
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  @ApiOperation({
    summary: 'One integration: its connection counts, its API keys (hints only) and its two webhook endpoints with their state',
  })
  @ApiOkResponse({ type: IntegrationDetailView })
  @ApiErrors('INTEGRATION_NOT_FOUND')
  async get(@Param('integrationId', uuid('integrationId')) raw: string): Promise<IntegrationDetailView> {
    const id = raw.toLowerCase();
    const [integration, keys, endpoints] = await Promise.all([
      this.client.integration(id),
      this.partners.apiKeys(id),
      this.webhooks.endpoints(id),
    ]);
    return { integration, keys, endpoints };
  }

  @Get('integrations/:integrationId/connections')
  @RequirePermission('operations.read')
  @ApiAdminRoute('operations.read')
  @AuditedRead({ type: 'integration', param: 'integrationId' })
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  @ApiOperation({
    summary: "The integration's connections to merchants (the real merchant id, both modes unless one is asked), newest first",
  })
  @ApiOkResponse({ type: StaffConnectionPageDto })
  @ApiErrors('INTEGRATION_NOT_FOUND')
  connections(
    @Param('integrationId', uuid('integrationId')) id: string,
    @Query() query: ConnectionsQuery,
  ): Promise<Page<StaffConnectionView>> {
    return this.client.connections(id.toLowerCase(), query);
  }

  @Post('integrations/:integrationId/keys')
  @RequirePermission('partners.manage')
  @ApiAdminRoute('partners.manage')
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  @ApiOperation({
    summary:
      'Asks for a new API key, or the replacement of one (replacesKeyId): PARTNER_KEY_ISSUE, approved by a compliance officer or another administrator',
    description:
      'Once approved, the key exists and its secret waits, encrypted, for the maker alone: POST /api/backoffice/partners/key-requests/{id}/collect shows it once (within 24 h). ' +
      'The request, its result and the audit trail only ever show the key id and hint.',
  })
  @ApiSubmitted()
  @ApiErrors('INTEGRATION_NOT_FOUND', 'API_KEY_NOT_FOUND', 'CONFLICT', 'APPROVAL_DUPLICATE_PENDING')
  async requestKey(
    @CurrentUser() user: AuthUser,
    @Param('integrationId', uuid('integrationId')) id: string,
    @Body() dto: RequestKeyDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApprovalRequestView> {
    const payload = {
      integrationId: id.toLowerCase(),
      mode: dto.mode,
      ...(dto.replacesKeyId ? { replacesKeyId: dto.replacesKeyId.toLowerCase() } : {}),
      ...(dto.overlapSeconds !== undefined ? { overlapSeconds: dto.overlapSeconds } : {}),
    };
    return submitted(reply, await this.keys.requestKey(user, payload, dto.reason));
  }

  @Post('integrations/:integrationId/keys/:keyId/revoke')
  @RequirePermission('partners.manage')
  @ApiAdminRoute('partners.manage')
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  @ApiParam({ name: 'keyId', format: 'uuid' })
  @ApiOperation({
    summary: 'Asks for a key to be revoked: PARTNER_KEY_REVOKE, carried out when a compliance officer or another administrator approves',
  })
  @ApiSubmitted()
  @ApiErrors('INTEGRATION_NOT_FOUND', 'API_KEY_NOT_FOUND', 'CONFLICT', 'APPROVAL_DUPLICATE_PENDING')
  async requestRevocation(
    @CurrentUser() user: AuthUser,
    @Param('integrationId', uuid('integrationId')) id: string,
    @Param('keyId', uuid('keyId')) keyId: string,
    @Body() dto: ReasonDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApprovalRequestView> {
    return submitted(reply, await this.keys.requestRevocation(user, id.toLowerCase(), keyId.toLowerCase(), dto.reason));
  }

  @Post('key-requests/:approvalId/collect')
  @Header('cache-control', 'no-store')
  @RequirePermission('partners.manage')
  @ApiAdminRoute('partners.manage', '`PARTNER_KEY_COLLECTOR_NOT_MAKER`: only the maker of the request collects its key')
  @ApiParam({ name: 'approvalId', format: 'uuid' })
  @ApiOperation({ summary: 'The key an approved PARTNER_KEY_ISSUE created, shown once to the staff member who asked for it' })
  @ApiResponse({ status: 201, type: IssuedApiKeyDto, description: 'the key, this once: store it now' })
  @ApiErrors('APPROVAL_NOT_FOUND', 'PARTNER_KEY_NOT_COLLECTABLE', 'PARTNER_KEY_COLLECTOR_NOT_MAKER')
  collect(@CurrentUser() user: AuthUser, @Param('approvalId', uuid('approvalId')) id: string): Promise<IssuedApiKey> {
    return this.keys.collect(user, id.toLowerCase());
  }

  @Post('integrations/:integrationId/webhook-secret/rotate')
  @RequirePermission('partners.manage')
  @ApiAdminRoute('partners.manage')
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  @ApiOperation({
    summary:
      'Asks for a new webhook signing secret of one mode: WEBHOOK_SECRET_ROTATE, carried out when a compliance officer or another administrator approves',
    description:
      'Whoever holds the secret can sign webhooks the partner trusts, so the person who asks is not the one who decides. Once approved, the ' +
      'current secret keeps signing alongside the new one for the overlap, and the new secret waits, encrypted, for the maker alone: ' +
      'POST /api/backoffice/partners/secret-requests/{id}/collect shows it once (within 24 h).',
  })
  @ApiSubmitted()
  @ApiErrors('INTEGRATION_NOT_FOUND', 'CONFLICT', 'APPROVAL_DUPLICATE_PENDING')
  async requestSecretRotation(
    @CurrentUser() user: AuthUser,
    @Param('integrationId', uuid('integrationId')) id: string,
    @Body() dto: RotateWebhookSecretDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApprovalRequestView> {
    return submitted(reply, await this.keys.requestSecretRotation(user, id.toLowerCase(), dto.mode, dto.reason));
  }

  @Post('secret-requests/:approvalId/collect')
  @Header('cache-control', 'no-store')
  @RequirePermission('partners.manage')
  @ApiAdminRoute('partners.manage', '`PARTNER_KEY_COLLECTOR_NOT_MAKER`: only the maker of the request collects its secret')
  @ApiParam({ name: 'approvalId', format: 'uuid' })
  @ApiOperation({
    summary: 'The webhook signing secret an approved WEBHOOK_SECRET_ROTATE made, shown once to the staff member who asked for it',
  })
  @ApiResponse({ status: 201, type: RotatedWebhookSecretDto, description: 'the secret, this once: hand it to the partner now' })
  @ApiErrors('APPROVAL_NOT_FOUND', 'WEBHOOK_SECRET_NOT_COLLECTABLE', 'PARTNER_KEY_COLLECTOR_NOT_MAKER')
  collectSecret(@CurrentUser() user: AuthUser, @Param('approvalId', uuid('approvalId')) id: string): Promise<RotatedWebhookSecret> {
    return this.keys.collectSecret(user, id.toLowerCase());
  }
}
