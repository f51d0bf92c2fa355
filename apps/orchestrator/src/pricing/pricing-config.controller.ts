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
import { ActivePricingView, ChangePricingDto, PRICING_CHANGE_EXAMPLE } from './pricing-section';

/** `/api/config/pricing`: the fee and commission grids in force (public) and their changes (`config.manage`). */
@ApiTags('config')
@Controller('config')
export class PricingConfigController {
  constructor(
    private readonly versions: ConfigVersionsService,
    private readonly changes: ConfigChangeSubmitter,
  ) {}

  @Get('pricing')
  @PublicRoute()
  @ApiOperation({ summary: 'Fee grids (charged to the payer) and agent commission grids in force' })
  @ApiOkResponse({ type: ActivePricingView })
  @ApiErrors('INTERNAL_ERROR')
  async pricing(): Promise<ActivePricingView> {
    return toActiveView(await this.versions.active('pricing'));
  }

  @Post('pricing/versions')
  @RequirePermission('config.manage')
  @ApiAdminRoute('config.manage')
  @ApiOperation({
    summary:
      'New version of the fee and commission grids. Grids must be complete (every type and currency for fees), bands contiguous from 1 and open-ended, integers ≥ 0, rates ≤ 10 000 bps; over the amounts the limits in force allow, no commission above the amount (COMMISSION_ABOVE_AMOUNT) or above COMMISSION_MAX_PER_OPERATION (COMMISSION_ABOVE_CEILING).' +
      THROUGH_APPROVAL,
  })
  @ApiBody({ type: ChangePricingDto, examples: { complete: { summary: 'a complete pricing section', value: PRICING_CHANGE_EXAMPLE } } })
  @ApiConfigChangeAnswers()
  changePricing(
    @Body() body: ChangePricingDto,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConfigVersion | ApprovalRequestView> {
    return this.changes.submit('pricing', body, user, reply);
  }
}
