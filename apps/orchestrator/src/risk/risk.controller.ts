import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AppException } from '@mm/errors';
import { type AuthUser, CurrentUser, RequirePermission } from '../access/permissions';
import { ApprovalRequestView } from '../approvals/approval.views';
import { ApprovalsService } from '../approvals/approvals.service';
import { ApiAdminRoute, ApiErrors } from '../common/api-errors';
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
 * (`compliance.audit`). Barring is immediate; lifting lets money move again, so it is the
 * maker-checker action BLOCKLIST_REMOVE, as unfreezing a customer is.
 */
@ApiTags('risk')
@Controller('risk')
export class RiskController {
  constructor(
    private readonly blocklist: BlocklistService,
    private readonly risk: RiskService,
    private readonly approvals: ApprovalsService,
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
  @ApiOperation({
    summary:
      'Asks for an entry to be lifted (maker-checker BLOCKLIST_REMOVE): another staff member holding customers.freeze approves it at /api/backoffice/approvals/{id}/approve; the entry is kept as history with who, when and why',
    description:
      '202 with the request while it waits for a checker; 200 with the lifted entry when APPROVALS_ONE_PERSON_ACTIONS lists BLOCKLIST_REMOVE and it was carried out at once.',
  })
  @ApiAcceptedResponse({ type: ApprovalRequestView, description: 'the request, PENDING: another staff member approves it' })
  @ApiOkResponse({ type: BlocklistEntryView, description: 'lifted at once (one-person configuration)' })
  @ApiErrors('VALIDATION_ERROR', 'BLOCKLIST_ENTRY_NOT_FOUND', 'APPROVAL_DUPLICATE_PENDING')
  async remove(
    @Param('id') id: string,
    @Query() query: RemoveBlocklistEntryQueryDto,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<BlocklistEntryView | ApprovalRequestView> {
    if (!UUID.test(id)) {
      throw new AppException('VALIDATION_ERROR', 'id must be a UUID', {
        errors: [{ field: 'id', code: 'INVALID_UUID', message: 'must be a UUID' }],
      });
    }
    const entryId = id.toLowerCase();
    const request = await this.approvals.submit(user, {
      action: 'BLOCKLIST_REMOVE',
      payload: { entryId, reason: query.reason },
      reason: query.reason,
    });
    if (request.status === 'PENDING') {
      reply.status(202);
      return request;
    }
    const entry = await this.blocklist.get(entryId);
    if (!entry) throw new AppException('BLOCKLIST_ENTRY_NOT_FOUND');
    return entry;
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
