import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import {
  AcknowledgeReconciliationAlertDto,
  BankStatementView,
  ImportBankStatementDto,
  ReconciliationAlertView,
  ReconciliationAlertsQueryDto,
  ReconciliationListQueryDto,
  ReconciliationReportView,
  ReconciliationRunView,
  ReconciliationRunsQueryDto,
  ResolveReconciliationAlertDto,
  RunReconciliationDto,
} from '@mm/contracts';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { OperatorTokens } from '../corrections/operator-tokens.service';
import { ApiReconcilerErrors, identifyReconciler } from './reconcilers';
import { ReconciliationAlertsService } from './reconciliation-alerts.service';
import { ReconciliationRunsService } from './reconciliation-runs.service';
import { BankStatementsReader, StatementImportService } from './statement-import.service';

/**
 * Float reconciliation against the trust bank account (docs/reconciliation.md). Like audits, every
 * call carries a platform service's key (the orchestrator's `/api/v1/compliance/reconciliation`
 * routes) and the officer's own access token, verified here: COMPLIANCE or ADMIN, recorded on every
 * statement, run and decision.
 */
@ApiTags('reconciliation')
@ApiSecurity({ serviceKey: [], bearer: [] })
@ApiReconcilerErrors()
@Controller('internal/reconciliation')
@UseGuards(ServiceKeyGuard)
export class ReconciliationController {
  constructor(
    private readonly tokens: OperatorTokens,
    private readonly imports: StatementImportService,
    private readonly statements: BankStatementsReader,
    private readonly runs: ReconciliationRunsService,
    private readonly alerts: ReconciliationAlertsService,
  ) {}

  @Post('statements')
  @ApiOperation({ summary: 'Import a trust-account statement (camt.053 or CSV); every refusal leaves nothing written' })
  @ApiResponse({ status: 201, type: BankStatementView })
  @ApiErrors(
    'VALIDATION_ERROR',
    'BANK_STATEMENT_MALFORMED',
    'BANK_STATEMENT_DUPLICATE',
    'BANK_STATEMENT_OUT_OF_ORDER',
    'BANK_STATEMENT_DAY_NOT_OVER',
    'BANK_STATEMENT_WRONG_CURRENCY',
    'BANK_ACCOUNT_NOT_TRUST_ACCOUNT',
  )
  async importStatement(
    @Body() dto: ImportBankStatementDto,
    @Headers('authorization') authorization: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<BankStatementView> {
    return this.imports.import(dto, await identifyReconciler(this.tokens, authorization, request, 'import a bank statement'));
  }

  @Get('statements')
  @ApiOperation({ summary: 'Imported statements, newest first' })
  @ApiOkResponse({ type: [BankStatementView] })
  @ApiErrors('VALIDATION_ERROR')
  async listStatements(
    @Query() query: ReconciliationListQueryDto,
    @Headers('authorization') authorization: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<BankStatementView[]> {
    await identifyReconciler(this.tokens, authorization, request, 'read bank statements');
    return this.statements.list(query.limit ?? 50);
  }

  @Get('statements/:id')
  @ApiOperation({ summary: 'One imported statement' })
  @ApiOkResponse({ type: BankStatementView })
  @ApiErrors('VALIDATION_ERROR', 'BANK_STATEMENT_NOT_FOUND')
  async getStatement(
    @Param('id', UuidParamPipe) id: string,
    @Headers('authorization') authorization: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<BankStatementView> {
    await identifyReconciler(this.tokens, authorization, request, 'read bank statements');
    return this.statements.get(id);
  }

  @Post('runs')
  @ApiOperation({
    summary: 'Reconcile one imported statement with the ledger: matches, circulation, an alert per difference not already alerted',
  })
  @ApiResponse({ status: 201, type: ReconciliationRunView })
  @ApiErrors('VALIDATION_ERROR', 'BANK_STATEMENT_NOT_FOUND', 'RECONCILIATION_DAY_NOT_OVER', 'CONCURRENCY_CONFLICT')
  async run(
    @Body() dto: RunReconciliationDto,
    @Headers('authorization') authorization: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<ReconciliationRunView> {
    const by = await identifyReconciler(this.tokens, authorization, request, 'run a reconciliation');
    return this.runs.run(dto.statementId.toLowerCase(), by);
  }

  @Get('runs')
  @ApiOperation({ summary: 'Reconciliation runs, newest first' })
  @ApiOkResponse({ type: [ReconciliationRunView] })
  @ApiErrors('VALIDATION_ERROR')
  async listRuns(
    @Query() query: ReconciliationRunsQueryDto,
    @Headers('authorization') authorization: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<ReconciliationRunView[]> {
    await identifyReconciler(this.tokens, authorization, request, 'read reconciliation runs');
    return this.runs.list(query);
  }

  @Get('runs/:id')
  @ApiOperation({ summary: 'One reconciliation run' })
  @ApiOkResponse({ type: ReconciliationRunView })
  @ApiErrors('VALIDATION_ERROR', 'RECONCILIATION_RUN_NOT_FOUND')
  async getRun(
    @Param('id', UuidParamPipe) id: string,
    @Headers('authorization') authorization: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<ReconciliationRunView> {
    await identifyReconciler(this.tokens, authorization, request, 'read reconciliation runs');
    return this.runs.get(id);
  }

  @Get('runs/:id/report')
  @ApiOperation({ summary: 'The report of a run: its statement, matches, unmatched items on both sides and its alerts as they stand' })
  @ApiOkResponse({ type: ReconciliationReportView })
  @ApiErrors('VALIDATION_ERROR', 'RECONCILIATION_RUN_NOT_FOUND')
  async report(
    @Param('id', UuidParamPipe) id: string,
    @Headers('authorization') authorization: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<ReconciliationReportView> {
    await identifyReconciler(this.tokens, authorization, request, 'read reconciliation runs');
    return this.runs.report(id);
  }

  @Get('alerts')
  @ApiOperation({ summary: 'Reconciliation alerts, newest first (e.g. ?status=OPEN)' })
  @ApiOkResponse({ type: [ReconciliationAlertView] })
  @ApiErrors('VALIDATION_ERROR')
  async listAlerts(
    @Query() query: ReconciliationAlertsQueryDto,
    @Headers('authorization') authorization: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<ReconciliationAlertView[]> {
    await identifyReconciler(this.tokens, authorization, request, 'read reconciliation alerts');
    return this.alerts.list(query);
  }

  @Get('alerts/:id')
  @ApiOperation({ summary: 'One reconciliation alert with its evidence and decisions' })
  @ApiOkResponse({ type: ReconciliationAlertView })
  @ApiErrors('VALIDATION_ERROR', 'RECONCILIATION_ALERT_NOT_FOUND')
  async getAlert(
    @Param('id', UuidParamPipe) id: string,
    @Headers('authorization') authorization: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<ReconciliationAlertView> {
    await identifyReconciler(this.tokens, authorization, request, 'read reconciliation alerts');
    return this.alerts.get(id);
  }

  @Post('alerts/:id/acknowledge')
  @HttpCode(200)
  @ApiOperation({ summary: 'Acknowledge an open alert' })
  @ApiOkResponse({ type: ReconciliationAlertView, description: 'the alert, ACKNOWLEDGED' })
  @ApiErrors('VALIDATION_ERROR', 'RECONCILIATION_ALERT_NOT_FOUND', 'RECONCILIATION_ALERT_ALREADY_ACKNOWLEDGED')
  async acknowledge(
    @Param('id', UuidParamPipe) id: string,
    @Body() dto: AcknowledgeReconciliationAlertDto,
    @Headers('authorization') authorization: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<ReconciliationAlertView> {
    return this.alerts.acknowledge(
      id,
      dto,
      await identifyReconciler(this.tokens, authorization, request, 'acknowledge a reconciliation alert'),
    );
  }

  @Post('alerts/:id/resolve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Resolve an acknowledged alert: by an executed four-eyes correction, or accepted with a note' })
  @ApiOkResponse({ type: ReconciliationAlertView, description: 'the alert, RESOLVED' })
  @ApiErrors(
    'VALIDATION_ERROR',
    'RECONCILIATION_ALERT_NOT_FOUND',
    'RECONCILIATION_ALERT_NOT_ACKNOWLEDGED',
    'RECONCILIATION_ALERT_ALREADY_RESOLVED',
    'RECONCILIATION_CORRECTION_NOT_ELIGIBLE',
    'RECONCILIATION_CORRECTION_PREDATES_ALERT',
    'RECONCILIATION_CORRECTION_MISMATCH',
    'RECONCILIATION_CORRECTION_ALREADY_USED',
  )
  async resolve(
    @Param('id', UuidParamPipe) id: string,
    @Body() dto: ResolveReconciliationAlertDto,
    @Headers('authorization') authorization: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<ReconciliationAlertView> {
    return this.alerts.resolve(id, dto, await identifyReconciler(this.tokens, authorization, request, 'resolve a reconciliation alert'));
  }
}
