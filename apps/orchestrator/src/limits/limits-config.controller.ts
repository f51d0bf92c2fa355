import { Body, Controller, Get, Post, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type AuthUser, CurrentUser, PublicRoute, RequirePermission } from '../access/permissions';
import type { ApprovalRequestView } from '../approvals/approval.views';
import { ApiAdminRoute, ApiErrors } from '../common/api-errors';
import { ApiConfigChangeAnswers, ConfigChangeSubmitter, THROUGH_APPROVAL } from '../config-api/config-change.submitter';
import type { ConfigVersion } from '../config-api/config-sections';
import { ConfigVersionsService } from '../config-api/config-versions.service';
import { toActiveView } from '../config-api/dto/config-views';
import { ActiveLimitsView, ChangeLimitsDto, LIMITS_CHANGE_EXAMPLE } from './limits-section';

/** `/api/config/limits`: the limits in force (public) and their changes (`config.manage`). */
@ApiTags('config')
@Controller('config')
export class LimitsConfigController {
  constructor(
    private readonly versions: ConfigVersionsService,
    private readonly changes: ConfigChangeSubmitter,
  ) {}

  @Get('limits')
  @PublicRoute()
  @ApiOperation({ summary: 'Amount bounds per operation type, customer limits per KYC tier and agent ceilings in force' })
  @ApiOkResponse({ type: ActiveLimitsView })
  @ApiErrors('INTERNAL_ERROR')
  async limits(): Promise<ActiveLimitsView> {
    return toActiveView(await this.versions.active('limits'));
  }

  @Post('limits/versions')
  @RequirePermission('config.manage')
  @ApiAdminRoute('config.manage')
  @ApiOperation({
    summary:
      'New version of the limits: bounds for every type and currency (max ≥ min), tiers with single ≤ daily ≤ monthly, agent ceilings per currency; bounds under which the commission grid in force would pay more than the amount or COMMISSION_MAX_PER_OPERATION are refused (COMMISSION_ABOVE_AMOUNT, COMMISSION_ABOVE_CEILING).' +
      THROUGH_APPROVAL,
  })
  @ApiBody({ type: ChangeLimitsDto, examples: { complete: { summary: 'a complete limits section', value: LIMITS_CHANGE_EXAMPLE } } })
  @ApiConfigChangeAnswers()
  changeLimits(
    @Body() body: ChangeLimitsDto,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConfigVersion | ApprovalRequestView> {
    return this.changes.submit('limits', body, user, reply);
  }
}
