import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { MerchantConnectionPageDto, type MerchantConnectionView, MerchantConnectionViewDto, type Page } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { isUuid } from '@mm/platform';
import { type AuthUser, CurrentUser, RequirePermission } from '../access/permissions';
import { ApiAdminRoute, ApiErrors } from '../common/api-errors';
import { MerchantsService } from '../identities/merchants/merchants.service';
import { MerchantConnectionsQueryDto } from './dto/partner-links.dto';
import { PartnersClient } from '../backoffice/partners/partners.client';

/** A connection id that is not a UUID is answered like an unknown one. */
function connectionId(raw: string): string {
  if (!isUuid(raw)) throw new AppException('CONNECTION_NOT_FOUND');
  return raw.toLowerCase();
}

/**
 * The merchant side of partner connections (docs/partners.md "3. Connecting to a merchant"): the logged-in merchant sees
 * who asks for what, in clear, and accepts, rejects or revokes. The merchant is always the one
 * behind the access token; another merchant's connection is CONNECTION_NOT_FOUND.
 */
@ApiTags('merchant: partner connections')
@ApiAdminRoute('connections.manage')
@ApiErrors('MERCHANT_NOT_FOUND', 'UPSTREAM_UNAVAILABLE')
@RequirePermission('connections.manage')
@Controller('merchant/connections')
export class MerchantConnectionsController {
  constructor(
    private readonly merchants: MerchantsService,
    private readonly partners: PartnersClient,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Connection requests and connections of the merchant (default: pending and active), newest first' })
  @ApiOkResponse({ type: MerchantConnectionPageDto })
  @ApiErrors('VALIDATION_ERROR')
  async list(@CurrentUser() user: AuthUser, @Query() query: MerchantConnectionsQueryDto): Promise<Page<MerchantConnectionView>> {
    const merchant = await this.merchants.getByUserId(user.userId);
    return this.partners.merchantConnections(merchant.id, { status: query.status, cursor: query.cursor, limit: query.limit });
  }

  @Post(':connectionId/accept')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Accepts a pending request: the integration may now act within the scopes (it is told by connection.activated)',
    description:
      'Only a pending request can be accepted. Accepting it again once active is 409 CONFLICT ("This connection is already active", as docs/partners.md "States" requires): nothing changes and connection.activated is not sent twice. A rejected, revoked or expired one is 409 CONFLICT too.',
  })
  @ApiOkResponse({ type: MerchantConnectionViewDto })
  @ApiErrors('CONNECTION_NOT_FOUND', 'CONFLICT')
  @ApiParam({ name: 'connectionId', format: 'uuid' })
  accept(@CurrentUser() user: AuthUser, @Param('connectionId') id: string): Promise<MerchantConnectionView> {
    return this.act(user, id, 'accept');
  }

  @Post(':connectionId/reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'Rejects a pending request' })
  @ApiOkResponse({ type: MerchantConnectionViewDto })
  @ApiErrors('CONNECTION_NOT_FOUND', 'CONFLICT')
  @ApiParam({ name: 'connectionId', format: 'uuid' })
  reject(@CurrentUser() user: AuthUser, @Param('connectionId') id: string): Promise<MerchantConnectionView> {
    return this.act(user, id, 'reject');
  }

  @Post(':connectionId/revoke')
  @HttpCode(200)
  @ApiOperation({ summary: 'Ends an active connection (the integration is told by connection.revoked_by_merchant)' })
  @ApiOkResponse({ type: MerchantConnectionViewDto })
  @ApiErrors('CONNECTION_NOT_FOUND', 'CONFLICT')
  @ApiParam({ name: 'connectionId', format: 'uuid' })
  revoke(@CurrentUser() user: AuthUser, @Param('connectionId') id: string): Promise<MerchantConnectionView> {
    return this.act(user, id, 'revoke');
  }

  private async act(user: AuthUser, rawId: string, action: 'accept' | 'reject' | 'revoke'): Promise<MerchantConnectionView> {
    const id = connectionId(rawId);
    const merchant = await this.merchants.getByUserId(user.userId);
    return this.partners.merchantConnectionAction(merchant.id, id, action);
  }
}
