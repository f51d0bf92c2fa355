import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  ConnectionDto,
  type ConnectionView,
  MerchantConnectionPageDto,
  type MerchantConnectionView,
  MerchantConnectionViewDto,
  type Page,
} from '@mm/contracts';
import { ServiceKeyGuard, ApiErrors } from '@mm/platform';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { AdminActionDto } from '../integrations/dto/integration.dto';
import { ConnectionTransitions, type ConnectionMove } from './connection-transitions.service';
import { toConnectionView, toMerchantView } from './connection-row';
import { ConnectionsService } from './connections.service';
import { ConnectionListQueryDto } from './dto/connection.dto';

const merchant = () => new UuidParamPipe('merchantId');
const connection = () => new UuidParamPipe('connectionId', 'CONNECTION_NOT_FOUND');

/**
 * Internal (service key): the merchant side, called by the orchestrator once it has established
 * which merchant the logged-in user is. A connection of another merchant is CONNECTION_NOT_FOUND.
 */
@ApiTags('internal: merchant connections')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS', 'VALIDATION_ERROR')
@Controller('internal/partners')
@UseGuards(ServiceKeyGuard)
export class MerchantConnectionsController {
  constructor(
    private readonly connections: ConnectionsService,
    private readonly transitions: ConnectionTransitions,
  ) {}

  @Get('merchants/:merchantId/connections')
  @ApiOperation({ summary: "The merchant's live connections; default filter: pending and active" })
  @ApiOkResponse({ type: MerchantConnectionPageDto })
  list(@Param('merchantId', merchant()) merchantId: string, @Query() query: ConnectionListQueryDto): Promise<Page<MerchantConnectionView>> {
    return this.connections.listForMerchant(merchantId, query.status, query.cursor, query.limit ?? 20);
  }

  @Post('merchants/:merchantId/connections/:connectionId/accept')
  @HttpCode(200)
  @ApiOperation({
    summary: 'pending → active (connection.activated is sent to the integration)',
    description:
      'Any other state is 409 CONFLICT (docs/partners.md "States"), an active one included: "This connection is already active".',
  })
  @ApiOkResponse({ type: MerchantConnectionViewDto })
  @ApiErrors('CONNECTION_NOT_FOUND', 'CONFLICT')
  accept(
    @Param('merchantId', merchant()) merchantId: string,
    @Param('connectionId', connection()) id: string,
  ): Promise<MerchantConnectionView> {
    return this.byMerchant(merchantId, id, 'accept');
  }

  @Post('merchants/:merchantId/connections/:connectionId/reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'pending → rejected' })
  @ApiOkResponse({ type: MerchantConnectionViewDto })
  @ApiErrors('CONNECTION_NOT_FOUND', 'CONFLICT')
  reject(
    @Param('merchantId', merchant()) merchantId: string,
    @Param('connectionId', connection()) id: string,
  ): Promise<MerchantConnectionView> {
    return this.byMerchant(merchantId, id, 'reject');
  }

  @Post('merchants/:merchantId/connections/:connectionId/revoke')
  @HttpCode(200)
  @ApiOperation({ summary: 'active → revoked by merchant (connection.revoked_by_merchant is sent to the integration)' })
  @ApiOkResponse({ type: MerchantConnectionViewDto })
  @ApiErrors('CONNECTION_NOT_FOUND', 'CONFLICT')
  revoke(
    @Param('merchantId', merchant()) merchantId: string,
    @Param('connectionId', connection()) id: string,
  ): Promise<MerchantConnectionView> {
    return this.byMerchant(merchantId, id, 'revoke');
  }

  @Post('connections/:connectionId/revoke')
  @HttpCode(200)
  @ApiOperation({ summary: 'Admin revoke: pending or active → revoked by admin' })
  @ApiOkResponse({ type: ConnectionDto, description: 'the connection as the integration sees it' })
  @ApiErrors('CONNECTION_NOT_FOUND', 'CONFLICT')
  async adminRevoke(@Param('connectionId', connection()) id: string, @Body() dto: AdminActionDto): Promise<ConnectionView> {
    return toConnectionView(await this.transitions.move(id, 'revoke', { kind: 'admin', actorId: dto.actorId }));
  }

  private async byMerchant(merchantId: string, id: string, move: ConnectionMove): Promise<MerchantConnectionView> {
    return toMerchantView(await this.transitions.move(id, move, { kind: 'merchant', merchantId }));
  }
}
