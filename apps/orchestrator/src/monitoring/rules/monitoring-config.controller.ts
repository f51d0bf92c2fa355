import { Body, Controller, Post, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type AuthUser, CurrentUser, RequirePermission } from '../../access/permissions';
import { ApprovalRequestView } from '../../approvals/approval.views';
import { ApiAdminRoute, ApiErrors } from '../../common/api-errors';
import { ConfigChangeSubmitter } from '../../config-api/config-change.submitter';
import type { ConfigVersion } from '../../config-api/config-sections';
import { ChangeMonitoringDto, MONITORING_CHANGE_EXAMPLE } from './monitoring-section';

/** `POST /api/config/monitoring/versions`: a change of the monitoring rules, always approved by compliance. */
@ApiTags('config')
@Controller('config')
export class MonitoringConfigController {
  constructor(private readonly changes: ConfigChangeSubmitter) {}

  @Post('monitoring/versions')
  // compliance officers tune the rules they work with; administrators hold this permission too
  @RequirePermission('compliance.monitoring')
  @ApiAdminRoute('compliance.monitoring')
  @ApiOperation({
    summary:
      'New version of the transaction monitoring rules (docs/monitoring.md): each rule with its window and thresholds, every per-currency list naming each currency once. Alerts record the version they were raised under; the rules in force are also shown to compliance at GET /api/v1/compliance/monitoring/rules.' +
      ' Proposed by a compliance officer or an administrator, the change goes through the maker-checker engine (CONFIG_CHANGE) and is always approved by a compliance officer other than its maker (APPROVAL_COMPLIANCE_REQUIRED for anyone else): 202 with the pending request, whatever APPROVALS_ONE_PERSON_ACTIONS says.',
  })
  @ApiBody({
    type: ChangeMonitoringDto,
    examples: { complete: { summary: 'a complete monitoring section', value: MONITORING_CHANGE_EXAMPLE } },
  })
  @ApiAcceptedResponse({
    type: ApprovalRequestView,
    description: 'the change waits for a compliance officer (GET /api/backoffice/approvals/{id})',
  })
  @ApiErrors('VALIDATION_ERROR', 'CONFIG_VERSION_CONFLICT', 'APPROVAL_DUPLICATE_PENDING')
  changeMonitoring(
    @Body() body: ChangeMonitoringDto,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConfigVersion | ApprovalRequestView> {
    return this.changes.submit('monitoring', body, user, reply);
  }
}
