import { Body, Controller, Get, HttpCode, Param, Post, Query, Res, applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  AcknowledgeReconciliationAlertDto,
  BankStatementView,
  ImportBankStatementDto,
  ReconciliationAlertView,
  ReconciliationAlertsQueryDto,
  ReconciliationListQueryDto,
  ReconciliationReportQueryDto,
  ReconciliationReportView,
  ReconciliationRunView,
  ReconciliationRunsQueryDto,
  ResolveReconciliationAlertDto,
  RunReconciliationDto,
  reconciliationReportCsv,
} from '@mm/contracts';
import { type AuthUser, CurrentUser, RequirePermission } from '../access/permissions';
import { ApiAdminRoute, ApiErrors } from '../common/api-errors';
import { uuid } from '../common/validators';
import { AuditTarget } from '../staff-audit/audit-metadata';
import { ReconciliationLedgerClient } from './reconciliation-ledger.client';

const ERROR = { schema: { $ref: '#/components/schemas/ErrorBody' } };

/** The permission and the answers every reconciliation route shares: the guard's, the ledger's role check, the ledger's failures. */
const ReconciliationRoute = () =>
  applyDecorators(
    RequirePermission('compliance.reconciliation'),
    ApiAdminRoute(
      'compliance.reconciliation',
      '`OPERATOR_ROLE_REQUIRED`: the ledger itself accepts reconciliation only from COMPLIANCE and ADMIN',
    ),
    ApiResponse({
      status: 502,
      description:
        '`UPSTREAM_UNAVAILABLE`: the ledger is unreachable or failed, or refused the platform itself (an access token it cannot verify, a stale service key)',
      ...ERROR,
    }),
    ApiResponse({
      status: 504,
      description:
        '`UPSTREAM_TIMEOUT`: the ledger did not answer in time. Imports and runs are tried once; the ledger may still finish and record them',
      ...ERROR,
    }),
  );

const query = (q: object): string => {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(q)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
};

/**
 * Float reconciliation of the trust (escrow) bank account (docs/reconciliation.md): statements,
 * runs, alerts and their decisions live in the ledger; this controller checks the permission and
 * relays each call with the officer's own token, which the ledger verifies and records.
 */
@ApiTags('compliance')
@Controller('v1/compliance/reconciliation')
export class ReconciliationController {
  constructor(private readonly ledger: ReconciliationLedgerClient) {}

  @Post('statements')
  @ReconciliationRoute()
  @ApiOperation({
    summary: 'Import a trust-account bank statement',
    description:
      'format CAMT053 (ISO 20022 camt.053 XML: one Stmt, OPBD (or PRCD) and CLBD balances, booked entries) or CSV (the columns of docs/reconciliation.md), ' +
      'content the file as text, at most 1,000,000 characters (the gateway accepts bodies up to BODY_LIMIT_BYTES, 1 MiB by default). ' +
      'The account must be a trust account of LEDGER_TRUST_ACCOUNTS, in its currency; the statement must open with the closing balance ' +
      'of the last one imported for that account and be dated after it, and its closing day must be over in the bank days (West Africa Time unless the trust account names its offset) ' +
      '(422 BANK_STATEMENT_DAY_NOT_OVER otherwise). Any refusal leaves nothing written; the same statement again ' +
      '(same account and statement id, or the same content) is 409 BANK_STATEMENT_DUPLICATE.',
  })
  @ApiResponse({ status: 201, type: BankStatementView, description: 'the statement imported' })
  @ApiErrors(
    'VALIDATION_ERROR',
    'BANK_STATEMENT_MALFORMED',
    'BANK_STATEMENT_DUPLICATE',
    'BANK_STATEMENT_OUT_OF_ORDER',
    'BANK_STATEMENT_DAY_NOT_OVER',
    'BANK_STATEMENT_WRONG_CURRENCY',
    'BANK_ACCOUNT_NOT_TRUST_ACCOUNT',
    'PAYLOAD_TOO_LARGE',
  )
  importStatement(@Body() body: ImportBankStatementDto, @CurrentUser() user: AuthUser): Promise<BankStatementView> {
    return this.ledger.importStatement(body, user.accessToken);
  }

  @Get('statements')
  @ReconciliationRoute()
  @ApiOperation({ summary: 'Imported bank statements, newest first' })
  @ApiOkResponse({ type: [BankStatementView], description: 'at most `limit` statements (default 50)' })
  @ApiErrors('VALIDATION_ERROR')
  listStatements(@Query() q: ReconciliationListQueryDto, @CurrentUser() user: AuthUser): Promise<BankStatementView[]> {
    return this.ledger.read(`/statements${query(q)}`, user.accessToken);
  }

  @AuditTarget({ type: 'bank-statement', body: 'statementId' })
  @Post('runs')
  @ReconciliationRoute()
  @ApiOperation({
    summary: 'Reconcile an imported statement with the ledger',
    description:
      "Matches the statement's lines with the platform's float movements (a correction that resolved one of its bank lines with that line, " +
      'one-to-one by reference or by date within RECON_DATE_TOLERANCE_DAYS business days, a movement and its reversal cancelling out, grouped ' +
      "by business day both ways), compares the closing balance with the e-money in circulation at the end of the closing day in the bank's " +
      'days (West Africa Time, UTC+01:00, unless the trust account names its offset), and opens an alert, with its evidence, for the gap ' +
      'and for each unmatched item. A difference already covered by an alert of an earlier run that is not resolved, or was accepted, gets no second alert: the ' +
      'run lists that alert in seenAlertIds. Every run is recorded with the officer; runs of one trust account take turns; a statement whose closing day is not over ' +
      'yet is 409 RECONCILIATION_DAY_NOT_OVER. Changes no money.',
  })
  @ApiResponse({ status: 201, type: ReconciliationRunView, description: 'the run, BALANCED or DIFFERENCES' })
  @ApiErrors('VALIDATION_ERROR', 'BANK_STATEMENT_NOT_FOUND', 'RECONCILIATION_DAY_NOT_OVER', 'CONCURRENCY_CONFLICT')
  run(@Body() body: RunReconciliationDto, @CurrentUser() user: AuthUser): Promise<ReconciliationRunView> {
    return this.ledger.run(body.statementId, user.accessToken);
  }

  @Get('runs')
  @ReconciliationRoute()
  @ApiOperation({ summary: 'Reconciliation runs, newest first (optionally those of one statement)' })
  @ApiOkResponse({ type: [ReconciliationRunView], description: 'at most `limit` runs (default 50)' })
  @ApiErrors('VALIDATION_ERROR')
  listRuns(@Query() q: ReconciliationRunsQueryDto, @CurrentUser() user: AuthUser): Promise<ReconciliationRunView[]> {
    return this.ledger.read(`/runs${query(q)}`, user.accessToken);
  }

  @Get('runs/:runId')
  @ReconciliationRoute()
  @ApiParam({ name: 'runId', format: 'uuid', description: 'a reconciliation run' })
  @ApiOperation({ summary: 'One reconciliation run' })
  @ApiOkResponse({ type: ReconciliationRunView })
  @ApiErrors('VALIDATION_ERROR', 'RECONCILIATION_RUN_NOT_FOUND')
  getRun(@Param('runId', uuid('runId')) runId: string, @CurrentUser() user: AuthUser): Promise<ReconciliationRunView> {
    return this.ledger.read(`/runs/${runId}`, user.accessToken);
  }

  @Get('runs/:runId/report')
  @ReconciliationRoute()
  @ApiParam({ name: 'runId', format: 'uuid', description: 'a reconciliation run' })
  @ApiOperation({
    summary: 'The report of a run (JSON, or CSV with ?format=csv)',
    description:
      'The run, its statement, every match with its rule, the unmatched bank lines and ledger movements, the corrections set aside and the ' +
      'alerts with their decisions as they stand. format=csv answers text/csv: one row per bank line and per ledger movement (columns in docs/reconciliation.md).',
  })
  @ApiOkResponse({ type: ReconciliationReportView, description: 'JSON by default' })
  @ApiProduces('application/json', 'text/csv')
  @ApiErrors('VALIDATION_ERROR', 'RECONCILIATION_RUN_NOT_FOUND')
  async report(
    @Param('runId', uuid('runId')) runId: string,
    @Query() q: ReconciliationReportQueryDto,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ReconciliationReportView | string> {
    const report = await this.ledger.read<ReconciliationReportView>(`/runs/${runId}/report`, user.accessToken);
    if (q.format !== 'csv') return report;
    void reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="reconciliation-${runId}.csv"`);
    return reconciliationReportCsv(report);
  }

  @Get('alerts')
  @ReconciliationRoute()
  @ApiOperation({
    summary: 'Reconciliation alerts, newest first (e.g. ?status=OPEN, ?runId=…)',
    description: 'With runId: the alerts that run opened and the unresolved alerts of earlier runs it found again.',
  })
  @ApiOkResponse({ type: [ReconciliationAlertView], description: 'at most `limit` alerts (default 50)' })
  @ApiErrors('VALIDATION_ERROR')
  listAlerts(@Query() q: ReconciliationAlertsQueryDto, @CurrentUser() user: AuthUser): Promise<ReconciliationAlertView[]> {
    return this.ledger.read(`/alerts${query(q)}`, user.accessToken);
  }

  @Get('alerts/:alertId')
  @ReconciliationRoute()
  @ApiParam({ name: 'alertId', format: 'uuid', description: 'a reconciliation alert' })
  @ApiOperation({ summary: 'One reconciliation alert with its evidence and every decision' })
  @ApiOkResponse({ type: ReconciliationAlertView })
  @ApiErrors('VALIDATION_ERROR', 'RECONCILIATION_ALERT_NOT_FOUND')
  getAlert(@Param('alertId', uuid('alertId')) alertId: string, @CurrentUser() user: AuthUser): Promise<ReconciliationAlertView> {
    return this.ledger.read(`/alerts/${alertId}`, user.accessToken);
  }

  @AuditTarget({ type: 'reconciliation-alert', param: 'alertId' })
  @Post('alerts/:alertId/acknowledge')
  @HttpCode(200)
  @ReconciliationRoute()
  @ApiParam({ name: 'alertId', format: 'uuid', description: 'an OPEN reconciliation alert' })
  @ApiOperation({
    summary: 'Acknowledge a reconciliation alert',
    description: 'Recorded with the officer and the optional reason; an alert is acknowledged once.',
  })
  @ApiOkResponse({ type: ReconciliationAlertView, description: 'the alert, ACKNOWLEDGED' })
  @ApiErrors('VALIDATION_ERROR', 'RECONCILIATION_ALERT_NOT_FOUND', 'RECONCILIATION_ALERT_ALREADY_ACKNOWLEDGED')
  acknowledge(
    @Param('alertId', uuid('alertId')) alertId: string,
    @Body() body: AcknowledgeReconciliationAlertDto,
    @CurrentUser() user: AuthUser,
  ): Promise<ReconciliationAlertView> {
    return this.ledger.acknowledge(alertId, body, user.accessToken);
  }

  @AuditTarget({ type: 'reconciliation-alert', param: 'alertId' })
  @Post('alerts/:alertId/resolve')
  @HttpCode(200)
  @ReconciliationRoute()
  @ApiParam({ name: 'alertId', format: 'uuid', description: 'an ACKNOWLEDGED reconciliation alert' })
  @ApiOperation({
    summary: 'Resolve a reconciliation alert: by a four-eyes correction, or accepted with a note',
    description:
      'resolution CORRECTION names a ledger correction (correctionId) that is executed, was approved by someone other than its maker ' +
      '(POST /api/backoffice/ledger/corrections, then the approvals inbox), is in the currency of the alert, was submitted after the alert was ' +
      'raised (422 RECONCILIATION_CORRECTION_PREDATES_ALERT) and moves on the trust account what the difference calls for: the direction and ' +
      'amount of an unmatched bank line, the undoing of an unmatched movement, the amount of a gap (422 RECONCILIATION_CORRECTION_MISMATCH); ' +
      'a correction resolves one alert. resolution ACCEPTED explains the difference in reason. Recorded with the officer; final.',
  })
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
  resolve(
    @Param('alertId', uuid('alertId')) alertId: string,
    @Body() body: ResolveReconciliationAlertDto,
    @CurrentUser() user: AuthUser,
  ): Promise<ReconciliationAlertView> {
    return this.ledger.resolve(alertId, body, user.accessToken);
  }
}
