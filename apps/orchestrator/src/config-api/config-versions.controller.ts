import { Body, Controller, Get, Param, Post, Query, Res, applyDecorators } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type AuthUser, CurrentUser, PublicRoute, RequirePermission } from '../access/permissions';
import { ApprovalRequestView } from '../approvals/approval.views';
import { ApprovalsService } from '../approvals/approvals.service';
import { ApiAdminRoute, ApiErrors } from '../common/api-errors';
import { LIMITS_CHANGE_EXAMPLE, MONITORING_CHANGE_EXAMPLE, PRICING_CHANGE_EXAMPLE } from './config-examples';
import { diffDocuments } from './config-diff';
import { DiffQueryDto, HistoryQueryDto, parseSection, parseVersion } from './config-params';
import { CONFIG_SECTIONS, type ConfigSection, type ConfigVersion } from './config-sections';
import { ConfigVersionsService } from './config-versions.service';
import { ChangeLimitsDto, ChangeMonitoringDto, ChangePricingDto, ChangeRiskDto, type ConfigChangeDto } from './dto/config-change.dto';
import {
  ActiveLimitsView,
  ActivePricingView,
  ConfigDiffView,
  ConfigHistoryView,
  ConfigVersionView,
  toActiveView,
} from './dto/config-views';

const THROUGH_APPROVAL =
  ' The change goes through the maker-checker engine (CONFIG_CHANGE): 202 with the pending request, which another holder of config.manage approves; 201 with the new version when APPROVALS_ONE_PERSON_ACTIONS lists CONFIG_CHANGE.';

/** What every configuration write answers: 201 the new version in force, or 202 the pending CONFIG_CHANGE request. */
function ApiConfigChangeAnswers(): MethodDecorator {
  return applyDecorators(
    ApiCreatedResponse({ type: ConfigVersionView, description: 'the new version, in force (CONFIG_CHANGE configured one-person)' }),
    ApiAcceptedResponse({
      type: ApprovalRequestView,
      description: 'the change waits for a second administrator (GET /api/backoffice/approvals/{id})',
    }),
    ApiErrors('VALIDATION_ERROR', 'CONFIG_VERSION_CONFLICT', 'APPROVAL_DUPLICATE_PENDING'),
  );
}

/**
 * `/api/config/*`: the versioned fee, commission, limit and risk configuration.
 * Fees, commissions and limits are public (a customer sees the tariff before signing in, and an
 * agent its commission grid); risk thresholds and the change history (staff ids, reasons) are for
 * holders of `config.manage`, as is every change. A change is a CONFIG_CHANGE request of the
 * maker-checker engine (`config-change.handler.ts`): pending until a second administrator approves
 * it, unless configuration lets one person make it.
 */
@ApiTags('config')
@Controller('config')
export class ConfigVersionsController {
  constructor(
    private readonly versions: ConfigVersionsService,
    private readonly approvals: ApprovalsService,
  ) {}

  @Get('pricing')
  @PublicRoute()
  @ApiOperation({ summary: 'Fee grids (charged to the payer) and agent commission grids in force' })
  @ApiOkResponse({ type: ActivePricingView })
  @ApiErrors('INTERNAL_ERROR')
  async pricing(): Promise<ActivePricingView> {
    return toActiveView(await this.versions.active('pricing'));
  }

  @Get('limits')
  @PublicRoute()
  @ApiOperation({ summary: 'Amount bounds per operation type, customer limits per KYC tier and agent ceilings in force' })
  @ApiOkResponse({ type: ActiveLimitsView })
  @ApiErrors('INTERNAL_ERROR')
  async limits(): Promise<ActiveLimitsView> {
    return toActiveView(await this.versions.active('limits'));
  }

  @Get('risk')
  @RequirePermission('config.manage')
  @ApiAdminRoute('config.manage')
  @ApiOperation({ summary: 'Risk rule thresholds in force (never public: they would tell a fraudster how to stay under them)' })
  @ApiOkResponse({ type: ConfigVersionView })
  risk(): Promise<ConfigVersion> {
    return this.versions.active('risk');
  }

  @Get(':section/versions')
  @RequirePermission('config.manage')
  @ApiAdminRoute('config.manage')
  @ApiParam({ name: 'section', enum: CONFIG_SECTIONS })
  @ApiOperation({ summary: 'Change history of a section, newest first: version, who, when, why' })
  @ApiOkResponse({ type: ConfigHistoryView })
  @ApiErrors('VALIDATION_ERROR')
  async history(@Param('section') section: string, @Query() query: HistoryQueryDto): Promise<ConfigHistoryView> {
    const versions = await this.versions.history(parseSection(section), { before: query.before, limit: query.limit ?? 20 });
    const last = versions[versions.length - 1];
    return { versions, nextBefore: last && last.version > 1 && versions.length === (query.limit ?? 20) ? last.version : null };
  }

  @Get(':section/versions/diff')
  @RequirePermission('config.manage')
  @ApiAdminRoute('config.manage')
  @ApiParam({ name: 'section', enum: CONFIG_SECTIONS })
  @ApiOperation({
    summary: 'What changed between two versions of a section (from → to): who made each, when, why, and every changed value',
  })
  @ApiOkResponse({ type: ConfigDiffView })
  @ApiErrors('VALIDATION_ERROR', 'CONFIG_VERSION_NOT_FOUND')
  async diff(@Param('section') section: string, @Query() query: DiffQueryDto): Promise<ConfigDiffView> {
    const name = parseSection(section);
    const [from, to] = await Promise.all([this.versions.get(name, query.from), this.versions.get(name, query.to)]);
    const { document: _from, ...fromSummary } = from;
    const { document: _to, ...toSummary } = to;
    return { section: name, from: fromSummary, to: toSummary, changes: diffDocuments(from.document, to.document) };
  }

  @Get(':section/versions/:version')
  @RequirePermission('config.manage')
  @ApiAdminRoute('config.manage')
  @ApiParam({ name: 'section', enum: CONFIG_SECTIONS })
  @ApiParam({ name: 'version', schema: { type: 'integer', minimum: 1, maximum: 999_999_999, example: 1 } })
  @ApiOperation({ summary: 'One version of a section, as it was (the version a quote or a risk decision recorded)' })
  @ApiOkResponse({ type: ConfigVersionView })
  @ApiErrors('VALIDATION_ERROR', 'CONFIG_VERSION_NOT_FOUND')
  version(@Param('section') section: string, @Param('version') version: string): Promise<ConfigVersion> {
    return this.versions.get(parseSection(section), parseVersion(version));
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
    return this.change('pricing', body, user, reply);
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
    return this.change('limits', body, user, reply);
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
    return this.change('risk', body, user, reply);
  }

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
    return this.change('monitoring', body, user, reply);
  }

  private async change<S extends ConfigSection>(
    section: S,
    body: ConfigChangeDto & { document: unknown },
    user: AuthUser,
    reply: FastifyReply,
  ): Promise<ConfigVersion<S> | ApprovalRequestView> {
    const request = await this.approvals.submit(user, {
      action: 'CONFIG_CHANGE',
      payload: { section, baseVersion: body.baseVersion, reason: body.reason, document: body.document },
      reason: body.reason,
    });
    if (request.status === 'PENDING') {
      reply.status(202);
      return request;
    }
    reply.status(201);
    return this.versions.get(section, Number(request.result?.version));
  }
}
