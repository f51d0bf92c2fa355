import { Body, Controller, Get, Post, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type AuthUser, CurrentUser, RequirePermission } from '../access/permissions';
import type { ApprovalRequestView } from '../approvals/approval.views';
import { ApiAdminRoute } from '../common/api-errors';
import { ApiConfigChangeAnswers, ConfigChangeSubmitter, THROUGH_APPROVAL } from '../config-api/config-change.submitter';
import type { ConfigVersion } from '../config-api/config-sections';
import { ConfigVersionsService } from '../config-api/config-versions.service';
import { ConfigVersionView } from '../config-api/dto/config-views';
import { ChangeRiskDto } from './risk-section';

/** `/api/config/risk`: the risk thresholds in force and their changes, both for `config.manage` only. */
@ApiTags('config')
@Controller('config')
export class RiskConfigController {
  constructor(
    private readonly versions: ConfigVersionsService,
    private readonly changes: ConfigChangeSubmitter,
  ) {}

  @Get('risk')
  @RequirePermission('config.manage')
  @ApiAdminRoute('config.manage')
  @ApiOperation({ summary: 'Risk rule thresholds in force (never public: they would tell a fraudster how to stay under them)' })
  @ApiOkResponse({ type: ConfigVersionView })
  risk(): Promise<ConfigVersion> {
    return this.versions.active('risk');
  }

  @Post('risk/versions')
  @RequirePermission('config.manage')
  @ApiAdminRoute('config.manage')
  @ApiOperation({ summary: 'New version of the risk thresholds.' + THROUGH_APPROVAL })
  @ApiConfigChangeAnswers()
  changeRisk(
    @Body() body: ChangeRiskDto,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConfigVersion | ApprovalRequestView> {
    return this.changes.submit('risk', body, user, reply);
  }
}
