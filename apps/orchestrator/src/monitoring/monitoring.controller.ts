import { Body, Controller, Get, HttpCode, Param, Post, Query, Res, applyDecorators } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type AuthUser, CurrentUser, RequirePermission } from '../access/permissions';
import { uuid } from '../common/validators';
import { ApiAdminRoute, ApiErrors } from '../common/api-errors';
import { AuditTarget, AuditedRead } from '../staff-audit/audit-metadata';
import { CaseActions } from './cases/case-actions.service';
import { CaseQueries } from './cases/case-queries.service';
import { AlertPageView, AlertView, CaseDecisionView, CaseDetailView, CaseOperationPageView, CasePageView } from './cases/case.views';
import {
  AlertsQueryDto,
  AssignCaseDto,
  CaseDecisionDto,
  CaseEvidenceDto,
  CaseNoteDto,
  CaseOperationsQueryDto,
  CasesQueryDto,
  RuleFailuresQueryDto,
} from './cases/cases.dto';
import { MonitoringRulesService } from './rules/monitoring-rules.service';
import { MonitoringRulesView, RuleFailurePageView } from './rules/monitoring-rules.views';

const Officer = () => applyDecorators(RequirePermission('compliance.monitoring'), ApiAdminRoute('compliance.monitoring'));
const CaseParam = () => ApiParam({ name: 'caseId', format: 'uuid', description: 'the case (its id, not its MC- reference)' });
/** `caseId` alone does not say what it names: the staff audit trail records the case as the target. */
const CASE_TARGET = { type: 'compliance-case', param: 'caseId' } as const;

/**
 * Transaction monitoring for compliance officers (docs/monitoring.md): the alerts the rules raised,
 * the cases grouping them per person, and the work on a case (assignment, notes, evidence, the
 * decision). Every write is recorded in the staff audit trail like every staff write.
 */
@ApiTags('compliance')
@Controller('v1/compliance')
export class MonitoringController {
  constructor(
    private readonly queries: CaseQueries,
    private readonly actions: CaseActions,
    private readonly rules: MonitoringRulesService,
  ) {}

  @Get('alerts')
  @Officer()
  @AuditedRead({ type: 'person', query: 'subjectUserId' })
  @ApiOperation({
    summary: 'Monitoring alerts, newest first',
    description:
      'Each alert names its rule, the person it is about, the window the rule looked at, the figures it saw, the operations behind it, ' +
      'the configuration version it ran under and the case it belongs to. Filters combine; keyset pages of `limit` (20 by default).',
  })
  @ApiOkResponse({ type: AlertPageView })
  @ApiErrors('VALIDATION_ERROR')
  alerts(@Query() query: AlertsQueryDto): Promise<AlertPageView> {
    return this.queries.alerts({ ...query, limit: query.limit ?? 20 });
  }

  @Get('alerts/:alertId')
  @Officer()
  @AuditedRead({ type: 'monitoring-alert', param: 'alertId' })
  @ApiParam({ name: 'alertId', format: 'uuid' })
  @ApiOperation({ summary: 'One monitoring alert', description: 'The alert as the list shows it, with the case it belongs to.' })
  @ApiOkResponse({ type: AlertView })
  @ApiErrors('VALIDATION_ERROR', 'ALERT_NOT_FOUND')
  alert(@Param('alertId', uuid('alertId')) alertId: string): Promise<AlertView> {
    return this.queries.alert(alertId.toLowerCase());
  }

  @Get('cases')
  @Officer()
  @AuditedRead({ type: 'person', query: 'subjectUserId' })
  @ApiOperation({
    summary: 'Compliance cases, newest first',
    description:
      'One case per person at a time gathers the alerts about them until it is closed. Each case shows its status, assignee, decision ' +
      'and clock (opened, first alert, time to assignment, time to decision, age). Filters combine; keyset pages of `limit` (20 by default).',
  })
  @ApiOkResponse({ type: CasePageView })
  @ApiErrors('VALIDATION_ERROR')
  cases(@Query() query: CasesQueryDto): Promise<CasePageView> {
    return this.queries.cases({ ...query, limit: query.limit ?? 20 });
  }

  @Get('cases/:caseId')
  @Officer()
  @AuditedRead(CASE_TARGET)
  @CaseParam()
  @ApiOperation({
    summary: 'One compliance case with everything it holds',
    description:
      'The subject (name, phone, accounts, link to the 360 view), its first 50 alerts (alertCount: all of them; the rest at ' +
      'GET /api/v1/compliance/alerts?caseId=), every piece of evidence, its first 100 operations with operationsTotal (the rest at ' +
      'GET /api/v1/compliance/cases/{caseId}/operations), the clock, the full append-only history (opened, alert added, assigned, ' +
      'note, evidence, decision requested or withdrawn, decided) and `version`, the number of history events, which a decision or ' +
      'a suspicion report sends back as `expectedVersion`.',
  })
  @ApiOkResponse({ type: CaseDetailView })
  @ApiErrors('VALIDATION_ERROR', 'CASE_NOT_FOUND')
  case(@Param('caseId', uuid('caseId')) caseId: string): Promise<CaseDetailView> {
    return this.queries.detail(caseId.toLowerCase());
  }

  @Get('cases/:caseId/operations')
  @Officer()
  @AuditedRead(CASE_TARGET)
  @CaseParam()
  @ApiOperation({
    summary: 'The operations of a compliance case, oldest first',
    description:
      'Every operation its alerts name and every operation attached as evidence, as the monitoring feed received it, in keyset ' +
      'pages of `limit` (20 by default); the case view shows the first 100 and gives the cursor of the next ones.',
  })
  @ApiOkResponse({ type: CaseOperationPageView })
  @ApiErrors('VALIDATION_ERROR', 'CASE_NOT_FOUND')
  operations(@Param('caseId', uuid('caseId')) caseId: string, @Query() query: CaseOperationsQueryDto): Promise<CaseOperationPageView> {
    return this.queries.operations(caseId.toLowerCase(), query.cursor, query.limit ?? 20);
  }

  @Post('cases/:caseId/assignment')
  @HttpCode(200)
  @Officer()
  @AuditTarget(CASE_TARGET)
  @CaseParam()
  @ApiOperation({
    summary: 'Assign a case',
    description:
      'To the caller (empty body) or to another officer holding compliance.monitoring (auth is asked). An OPEN case becomes IN_REVIEW; ' +
      'the first assignment stops the time-to-assignment clock. Assigning to the current assignee changes nothing.',
  })
  @ApiOkResponse({ type: CaseDetailView, description: 'the case after the assignment' })
  @ApiErrors('VALIDATION_ERROR', 'CASE_NOT_FOUND', 'CASE_CLOSED', 'CASE_ASSIGNEE_NOT_OFFICER', 'UPSTREAM_UNAVAILABLE')
  assign(
    @Param('caseId', uuid('caseId')) caseId: string,
    @Body() body: AssignCaseDto,
    @CurrentUser() user: AuthUser,
  ): Promise<CaseDetailView> {
    return this.actions.assign(caseId.toLowerCase(), body.assigneeId, user);
  }

  @Post('cases/:caseId/notes')
  @HttpCode(200)
  @Officer()
  @AuditTarget(CASE_TARGET)
  @CaseParam()
  @ApiOperation({
    summary: 'Add a note to a case',
    description: 'Kept in the case history with its author and time; notes are never edited.',
  })
  @ApiOkResponse({ type: CaseDetailView, description: 'the case with the note' })
  @ApiErrors('VALIDATION_ERROR', 'CASE_NOT_FOUND', 'CASE_CLOSED')
  note(@Param('caseId', uuid('caseId')) caseId: string, @Body() body: CaseNoteDto, @CurrentUser() user: AuthUser): Promise<CaseDetailView> {
    return this.actions.note(caseId.toLowerCase(), body.text, user);
  }

  @Post('cases/:caseId/evidence')
  @HttpCode(200)
  @Officer()
  @AuditTarget(CASE_TARGET)
  @CaseParam()
  @ApiOperation({
    summary: 'Attach evidence to a case',
    description:
      'TRANSACTION: an operation the monitoring feed received, by its ledger reference (it then counts among the case’s operations). ' +
      'PERSON_360: a person’s 360 view (the subject by default), read now with the caller’s rights and kept whole as the snapshot ' +
      '(at most 64 KiB of JSON: longer lists are shortened to their newest items and named in `snapshotCut`), with the link to the ' +
      'live view. Who attached it and when are kept. Reading a 360 view is recorded in the staff audit trail naming the person ' +
      '(target `person`, the case in its details), besides the records of this write naming the case.',
  })
  @ApiOkResponse({ type: CaseDetailView, description: 'the case with the evidence' })
  @ApiErrors(
    'VALIDATION_ERROR',
    'CASE_NOT_FOUND',
    'CASE_CLOSED',
    'MONITORED_OPERATION_NOT_FOUND',
    'PERSON_NOT_FOUND',
    'AUDIT_TRAIL_UNAVAILABLE',
  )
  evidence(
    @Param('caseId', uuid('caseId')) caseId: string,
    @Body() body: CaseEvidenceDto,
    @CurrentUser() user: AuthUser,
  ): Promise<CaseDetailView> {
    return this.actions.evidence(caseId.toLowerCase(), body, user);
  }

  @Post('cases/:caseId/decision')
  @Officer()
  @AuditTarget(CASE_TARGET)
  @CaseParam()
  @ApiOperation({
    summary: 'Decide a case',
    description:
      'By the officer the case is assigned to, on the case as they last read it: `expectedVersion` is the `version` of that read, and ' +
      'a case that moved since (a new alert joined it, a note, evidence, an assignment) is refused with 409 CASE_CHANGED, nothing ' +
      'changed. NO_ACTION closes the case now (200). FREEZE submits a CASE_FREEZE request (202), always on four eyes: the case ' +
      'waits in DECISION_PENDING until another holder of compliance.monitoring approves it at /api/backoffice/approvals, which ' +
      'freezes the person and closes the case FREEZE linked to the request; a rejected or expired request puts the case back in ' +
      'review. A suspicion report closes a case from the regulatory reports module.',
  })
  @ApiOkResponse({ type: CaseDecisionView, description: 'NO_ACTION: the case closed' })
  @ApiAcceptedResponse({ type: CaseDecisionView, description: 'FREEZE: the case waits for the CASE_FREEZE request' })
  @ApiErrors(
    'VALIDATION_ERROR',
    'CASE_NOT_FOUND',
    'CASE_CLOSED',
    'CASE_DECISION_PENDING',
    'CASE_NOT_ASSIGNED_TO_YOU',
    'CASE_CHANGED',
    'CASE_SUBJECT_ALREADY_FROZEN',
    'CASE_SUBJECT_NOT_FREEZABLE',
    'APPROVAL_DUPLICATE_PENDING',
  )
  async decide(
    @Param('caseId', uuid('caseId')) caseId: string,
    @Body() body: CaseDecisionDto,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CaseDecisionView> {
    const { view, pending } = await this.actions.decide(caseId.toLowerCase(), body.decision, body.note, body.expectedVersion, user);
    reply.status(pending ? 202 : 200);
    return view;
  }

  @Get('monitoring/rules')
  @Officer()
  @ApiOperation({
    summary: 'The monitoring rules in force',
    description:
      'The version of the monitoring configuration section in force, who made it and why, each rule on or off, and every threshold. ' +
      'Compliance officers and administrators propose a change with POST /api/config/monitoring/versions (CONFIG_CHANGE), which ' +
      'only a compliance officer approves.',
  })
  @ApiOkResponse({ type: MonitoringRulesView })
  @ApiErrors('INTERNAL_ERROR')
  monitoringRules(): Promise<MonitoringRulesView> {
    return this.rules.current();
  }

  @Get('monitoring/failures')
  @Officer()
  @ApiOperation({
    summary: 'Rules that failed, newest first',
    description:
      'A rule that throws while judging an operation never blocks anything: the other rules still run, and the failure is kept here ' +
      '(rule, event, configuration version, error) and counted in monitoring_rule_failures_total. Pages of `limit` (20 by default).',
  })
  @ApiOkResponse({ type: RuleFailurePageView })
  @ApiErrors('VALIDATION_ERROR')
  failures(@Query() query: RuleFailuresQueryDto): Promise<RuleFailurePageView> {
    return this.rules.failures({ ...query, limit: query.limit ?? 20 });
  }
}
