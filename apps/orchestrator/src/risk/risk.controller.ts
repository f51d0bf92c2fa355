import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AppException } from '@mm/errors';
import { type AuthUser, CurrentUser, RequirePermission } from '../access/permissions';
import { ApiAdminRoute, ApiErrors } from '../config-api/api-errors';
import { BlocklistService } from './blocklist.service';
import {
  AddBlocklistEntryDto,
  BlocklistEntryView,
  BlocklistPageView,
  BlocklistQueryDto,
  RemoveBlocklistEntryQueryDto,
} from './dto/blocklist.dto';
import { DecisionsQueryDto, RiskDecisionsView } from './dto/decisions.dto';
import { RiskService } from './risk.service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Compliance side of the risk module. Barring or lifting a phone is the same kind of act as
 * freezing a customer (`customers.freeze`); reading the lists and the decisions is an audit
 * (`compliance.audit`).
 */
@ApiTags('risk')
@Controller('risk')
export class RiskController {
  constructor(
    private readonly blocklist: BlocklistService,
    private readonly risk: RiskService,
  ) {}

  @Get('blocklist')
  @RequirePermission('compliance.audit')
  @ApiAdminRoute('compliance.audit')
  @ApiOperation({ summary: 'Blocklisted phones, newest first (active only unless includeRemoved=true)' })
  @ApiOkResponse({ type: BlocklistPageView })
  @ApiErrors('VALIDATION_ERROR')
  async list(@Query() query: BlocklistQueryDto): Promise<BlocklistPageView> {
    return { entries: await this.blocklist.list({ ...query, limit: query.limit ?? 50, offset: query.offset ?? 0 }) };
  }

  @Post('blocklist')
  @HttpCode(201)
  @RequirePermission('customers.freeze')
  @ApiAdminRoute('customers.freeze')
  @ApiOperation({
    summary: 'Bar a phone: no operation may have it as initiator, payer or payee (refusals answer RISK_REJECTED / NOT_ALLOWED)',
  })
  @ApiCreatedResponse({ type: BlocklistEntryView })
  @ApiErrors('VALIDATION_ERROR', 'BLOCKLIST_ENTRY_EXISTS')
  add(@Body() body: AddBlocklistEntryDto, @CurrentUser() user: AuthUser): Promise<BlocklistEntryView> {
    return this.blocklist.add({ ...body, addedBy: user.userId });
  }

  @Delete('blocklist/:id')
  @RequirePermission('customers.freeze')
  @ApiAdminRoute('customers.freeze')
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({ summary: 'Lift an entry (kept as history with who, when and why)' })
  @ApiOkResponse({ type: BlocklistEntryView })
  @ApiErrors('VALIDATION_ERROR', 'BLOCKLIST_ENTRY_NOT_FOUND')
  remove(
    @Param('id') id: string,
    @Query() query: RemoveBlocklistEntryQueryDto,
    @CurrentUser() user: AuthUser,
  ): Promise<BlocklistEntryView> {
    if (!UUID.test(id)) {
      throw new AppException('VALIDATION_ERROR', 'id must be a UUID', {
        errors: [{ field: 'id', code: 'INVALID_UUID', message: 'must be a UUID' }],
      });
    }
    return this.blocklist.remove(id.toLowerCase(), { removedBy: user.userId, reason: query.reason });
  }

  @Get('decisions')
  @RequirePermission('compliance.audit')
  @ApiAdminRoute('compliance.audit')
  @ApiOperation({ summary: 'Risk decisions of an operation (create and confirm), with every rule signal' })
  @ApiOkResponse({ type: RiskDecisionsView })
  @ApiErrors('VALIDATION_ERROR')
  async decisions(@Query() query: DecisionsQueryDto): Promise<RiskDecisionsView> {
    return { decisions: await this.risk.decisionsOf(query.operationId) };
  }
}
