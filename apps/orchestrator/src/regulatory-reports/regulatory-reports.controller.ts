import { Body, Controller, Get, HttpCode, Param, Post, Query, Res, applyDecorators } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type AuthUser, CurrentUser, RequirePermission } from '../access/permissions';
import { uuid } from '../common/validators';
import { ApiAdminRoute, ApiErrors } from '../common/api-errors';
import { AuditTarget, AuditedRead } from '../staff-audit/audit-metadata';
import { GenerateDailyReportBody } from './dto/generate-daily.body';
import { ReportFilingBody, ReportSentBody, WrittenConfirmationBody } from './dto/lifecycle.bodies';
import { ListReportsQuery, ReportDocumentQuery } from './dto/report-queries';
import { SuspicionReportBody } from './dto/suspicion-report.body';
import { RegulatoryReportDetailView, RegulatoryReportPageView, ReportVerificationView } from './regulatory-report.views';
import { RegulatoryReportsService } from './regulatory-reports.service';

const ERROR = { schema: { $ref: '#/components/schemas/ErrorBody' } };

const ReportsRoute = () => applyDecorators(RequirePermission('compliance.reports'), ApiAdminRoute('compliance.reports'));

const UPSTREAM = applyDecorators(
  ApiResponse({ status: 502, description: '`UPSTREAM_UNAVAILABLE`: the ledger is unreachable or failed', ...ERROR }),
  ApiResponse({ status: 504, description: '`UPSTREAM_TIMEOUT`: the ledger did not answer in time', ...ERROR }),
);

const REPORT_ID = ApiParam({ name: 'id', format: 'uuid', description: 'a regulatory report' });

/**
 * A report names people (parties, phones, a suspicion report's subject): reading its content or a
 * document leaves a record in the staff audit trail, naming the report. Writes are recorded anyway;
 * this names the report they act on, which the generic `:id` after `reports` would not.
 */
const REPORT_TARGET = { type: 'regulatory-report', param: 'id' } as const;

/** What happened to a stored report afterwards (filed, confirmed in writing, sent): a 200 write on one report. */
const LifecycleRoute = () => applyDecorators(HttpCode(200), ReportsRoute(), REPORT_ID, AuditTarget(REPORT_TARGET));

/** The refusals every lifecycle record shares; the written confirmation adds one of its own. */
const LIFECYCLE_ERRORS = [
  'VALIDATION_ERROR',
  'REPORT_NOT_FOUND',
  'REPORT_KIND_MISMATCH',
  'REPORT_STATE_CONFLICT',
  'REPORT_TIME_IN_FUTURE',
  'REPORT_TIME_BEFORE_GENERATION',
] as const;

/**
 * `/api/v1/compliance/reports`: the daily threshold report and suspicion reports
 * (docs/regulatory-reports.md). Compliance officers generate them, download their CSV and printable
 * documents, and record what happened to them afterwards; a report never changes once stored.
 */
@ApiTags('compliance: regulatory reports')
@Controller('v1/compliance/reports')
export class RegulatoryReportsController {
  constructor(private readonly reports: RegulatoryReportsService) {}

  @Get()
  @ReportsRoute()
  @ApiOperation({
    summary: 'List regulatory reports, newest first',
    description:
      'Filtered by kind, state, the day they cover (periodDate) and their deadline: `deadline=OVERDUE` lists the suspicion reports ' +
      'not filed REGULATORY_FILING_DUE_HOURS after they were made and the filed ones not confirmed in writing 48 hours after their ' +
      'filing (`deadline` on each says which), `DUE_SOON` those whose deadline is near. Keyset pages.',
  })
  @ApiOkResponse({ type: RegulatoryReportPageView })
  @ApiErrors('VALIDATION_ERROR')
  list(@Query() query: ListReportsQuery): Promise<RegulatoryReportPageView> {
    return this.reports.list(query);
  }

  @Post('daily')
  @ReportsRoute()
  // the report's id is known only from the answer: the outcome record keeps it as details.resultId
  @AuditTarget({ type: 'regulatory-report' })
  @ApiOperation({
    summary: 'Generate the daily threshold report of a past day (or get the one already generated)',
    description:
      'Every succeeded cash-in, cash-out and transfer (merchant payments included) of the day (UTC+01:00) at or above ' +
      'REGULATORY_THRESHOLD_REPORT_MIN in its currency, read from the ledger, with both parties as the platform knows them. ' +
      'A day is reported only once REGULATORY_DAY_SETTLE_MS (default 10 minutes) has passed after its end, so that payments ' +
      'committed just after midnight are in it (409 REPORT_DAY_NOT_OVER before). Stored once: asking again for the same day ' +
      'answers the stored report (200), unchanged. A job generates yesterday’s report by itself.',
  })
  @ApiCreatedResponse({ type: RegulatoryReportDetailView, description: 'generated now' })
  @ApiOkResponse({ type: RegulatoryReportDetailView, description: 'already generated: the stored report' })
  @ApiErrors('VALIDATION_ERROR', 'REPORT_DAY_NOT_OVER')
  @UPSTREAM
  async generateDaily(
    @Body() body: GenerateDailyReportBody,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RegulatoryReportDetailView> {
    const { report, created } = await this.reports.generateDailyOnDemand(body, user);
    reply.status(created ? 201 : 200);
    return report;
  }

  @Post('suspicion')
  @ReportsRoute()
  // the case it closes; the new report's id is the outcome record's details.resultId
  @AuditTarget({ type: 'compliance-case', body: 'caseId' })
  @ApiOperation({
    summary: 'Make a suspicion report from a compliance case, closing the case',
    description:
      'By the officer the case is assigned to (CASE_NOT_ASSIGNED_TO_YOU otherwise), on the case as they last read it: ' +
      '`expectedVersion` is the `version` of GET /api/v1/compliance/cases/{caseId}, and a case that moved since (a new alert ' +
      'joined it) is refused with 409 CASE_CHANGED, nothing stored. Built from the case’s facts read with the case locked ' +
      '(subject, every operation with both parties, totals, each alert’s rule and reason) with the officer’s grounds and ' +
      'narrative, stored, and the case closed with the decision SUSPICION_REPORT in the same database transaction. Then file ' +
      'it (by phone or electronically) and confirm it in writing within 48 hours.',
  })
  @ApiCreatedResponse({ type: RegulatoryReportDetailView })
  @ApiErrors(
    'VALIDATION_ERROR',
    'CASE_NOT_FOUND',
    'CASE_ALREADY_REPORTED',
    'CASE_CLOSED',
    'CASE_DECISION_PENDING',
    'CASE_NOT_ASSIGNED_TO_YOU',
    'CASE_CHANGED',
  )
  suspicion(@Body() body: SuspicionReportBody, @CurrentUser() user: AuthUser): Promise<RegulatoryReportDetailView> {
    return this.reports.suspicion(body, user);
  }

  @Get(':id')
  @ReportsRoute()
  @REPORT_ID
  @AuditedRead(REPORT_TARGET)
  @ApiOperation({ summary: 'One report with its content, state, deadline and who generated, filed, confirmed or sent it' })
  @ApiOkResponse({ type: RegulatoryReportDetailView })
  @ApiErrors('VALIDATION_ERROR', 'REPORT_NOT_FOUND')
  get(@Param('id', uuid('id')) id: string): Promise<RegulatoryReportDetailView> {
    return this.reports.get(id);
  }

  @Get(':id/document')
  @ReportsRoute()
  @REPORT_ID
  @ApiProduces('text/csv', 'text/html')
  @AuditedRead(REPORT_TARGET)
  @ApiOperation({
    summary: 'Download the report as CSV or as a printable HTML page',
    description:
      'The bytes stored when the report was generated; `X-Content-SHA256` is their SHA-256 (csvSha256 or htmlSha256 of the report). ' +
      'CSV: RFC 4180, UTF-8, CRLF, header row, amounts as integers in the smallest unit, times in UTC (columns in docs/regulatory-reports.md). ' +
      'HTML: one self-contained page with print rules, no external resource.',
  })
  @ApiResponse({
    status: 200,
    description: 'the document',
    content: {
      'text/csv': {
        schema: { type: 'string', example: 'report_reference,report_date,category,…\r\nDTR-20261127,2026-11-27,CASH_FUNDED,…\r\n' },
      },
      'text/html': { schema: { type: 'string', example: '<!DOCTYPE html>\n<html lang="en">…</html>\n' } },
    },
  })
  @ApiErrors('VALIDATION_ERROR', 'REPORT_NOT_FOUND')
  async document(
    @Param('id', uuid('id')) id: string,
    @Query() query: ReportDocumentQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const doc = await this.reports.document(id, query.format);
    reply.header('x-content-sha256', doc.sha256);
    if (query.format === 'csv') {
      reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${doc.filename}"`);
    } else {
      // a stored page that could still run or fetch anything would not be the page that was stored
      reply
        .type('text/html; charset=utf-8')
        .header('content-disposition', `inline; filename="${doc.filename}"`)
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
    }
    return doc.body;
  }

  @Get(':id/verification')
  @ReportsRoute()
  @REPORT_ID
  @ApiOperation({
    summary: 'Check a stored report: its hashes, and for a daily report a rebuild from the ledger',
    description:
      'The stored texts against their SHA-256 and the stored content rendered again; a daily report is also rebuilt from the ledger ' +
      'with the thresholds it states: its operations part (amounts, fees, times, types, accounts) must be the same byte for byte ' +
      '(`identical`), the operations found now against those stored listed by reference; parties the orchestrator now describes ' +
      'differently (a phone changed, a KYC tier raised) are listed in `identityDrift`, which does not make the report non-identical. Read-only.',
  })
  @ApiOkResponse({ type: ReportVerificationView })
  @ApiErrors('VALIDATION_ERROR', 'REPORT_NOT_FOUND')
  @UPSTREAM
  verify(@Param('id', uuid('id')) id: string): Promise<ReportVerificationView> {
    return this.reports.verify(id);
  }

  @Post(':id/filing')
  @LifecycleRoute()
  @ApiOperation({
    summary: 'Record that a suspicion report was filed by phone or electronically',
    description:
      'Records the channel, the time (default now; not before the report was made, not more than 5 minutes ahead) and the officer. ' +
      'Its written confirmation is due 48 hours after that time. `filing.late` when filed or recorded after filingDueAt.',
  })
  @ApiOkResponse({ type: RegulatoryReportDetailView, description: 'the report, FILED, with confirmationDueAt' })
  @ApiErrors(...LIFECYCLE_ERRORS)
  file(
    @Param('id', uuid('id')) id: string,
    @Body() body: ReportFilingBody,
    @CurrentUser() user: AuthUser,
  ): Promise<RegulatoryReportDetailView> {
    return this.reports.file(id, body, user);
  }

  @Post(':id/written-confirmation')
  @LifecycleRoute()
  @ApiOperation({
    summary: 'Record the written confirmation of a suspicion report',
    description:
      'Who sent it, when (default now; not before the filing nor the report, not more than 5 minutes ahead) and its reference. Ends ' +
      'the 48-hour deadline; also valid with no filing before it. `writtenConfirmation.late` when sent or recorded after its deadline.',
  })
  @ApiOkResponse({ type: RegulatoryReportDetailView, description: 'the report, CONFIRMED' })
  @ApiErrors(...LIFECYCLE_ERRORS, 'REPORT_TIME_BEFORE_FILING')
  confirm(
    @Param('id', uuid('id')) id: string,
    @Body() body: WrittenConfirmationBody,
    @CurrentUser() user: AuthUser,
  ): Promise<RegulatoryReportDetailView> {
    return this.reports.confirmInWriting(id, body, user);
  }

  @Post(':id/sent')
  @LifecycleRoute()
  @ApiOperation({
    summary: 'Record that a daily report was sent to the financial intelligence unit',
    description:
      'Who sent it, how, when (default now; not before the report was made, not more than 5 minutes ahead) and any acknowledgement.',
  })
  @ApiOkResponse({ type: RegulatoryReportDetailView, description: 'the report, SENT' })
  @ApiErrors(...LIFECYCLE_ERRORS)
  markSent(
    @Param('id', uuid('id')) id: string,
    @Body() body: ReportSentBody,
    @CurrentUser() user: AuthUser,
  ): Promise<RegulatoryReportDetailView> {
    return this.reports.markSent(id, body, user);
  }
}
