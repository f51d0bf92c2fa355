import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  STATEMENT_MAX_DAYS,
  type SettlementStatement,
  SettlementStatementQuery,
  SettlementStatementView,
  settlementCsvFileName,
  settlementStatementCsv,
} from '@mm/contracts';
import { ApiErrors } from '@mm/platform';
import { PartnerApi } from '../common/public-api';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { CurrentPartner, type PartnerPrincipal } from '../keys/partner-principal';
import { PartnerStatementsService } from './partner-statements.service';

@ApiTags('statements')
@PartnerApi()
@Controller('partners-public/merchants')
export class PartnerStatementsController {
  constructor(private readonly statements: PartnerStatementsService) {}

  @Get(':merchantId/statements')
  @ApiOperation({
    summary: "A connected merchant's settlement statement for a day or a period: opening balance, every movement, closing balance",
    description:
      'Needs a live key and an active connection to merchantId with the scope orders.read (403 SETTLEMENT_LIVE_KEY_REQUIRED, NO_ACTIVE_CONNECTION, MISSING_SCOPE; ' +
      'a merchantId that is not a UUID answers like one without a connection). ' +
      `Give date, or from and to (days, inclusive, at most ${STATEMENT_MAX_DAYS}), at utcOffset (+01:00 when absent); a period that has not begun, ` +
      'an impossible day or a longer span is 400 SETTLEMENT_PERIOD_INVALID (top level, or the field code of a malformed day). ' +
      'A period starting more than 400 days back is 400 SETTLEMENT_PERIOD_TOO_OLD. ' +
      "The statement starts no earlier than the activation of the partner's connection (period.start is then that instant); a period ending " +
      'by then is 403 SETTLEMENT_PERIOD_BEFORE_CONNECTION. Every line is one ledger entry on the merchant account, in the order applied; a ' +
      "payment that paid one of the partner's own orders names it (order), other lines have order null. " +
      'openingBalance + totalCredits − totalDebits = closingBalance. final is true once the period ended more than 5 minutes ago and every QR ' +
      'payment in it was applied: then the same request gives the same answer, and format=csv (columns in docs/statements.md) the same bytes. ' +
      'More than 20000 entries is 422 SETTLEMENT_STATEMENT_TOO_LARGE; a read the ledger cancelled after its time limit is 503 SETTLEMENT_STATEMENT_TIMEOUT.',
  })
  @ApiParam({ name: 'merchantId', format: 'uuid' })
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({ type: SettlementStatementView, description: 'JSON; with format=csv the same statement as text/csv' })
  @ApiErrors(
    'VALIDATION_ERROR',
    'SETTLEMENT_PERIOD_INVALID',
    'SETTLEMENT_PERIOD_TOO_OLD',
    'SETTLEMENT_PERIOD_BEFORE_CONNECTION',
    'SETTLEMENT_FORMAT_INVALID',
    'UNSUPPORTED_CURRENCY',
    'SETTLEMENT_LIVE_KEY_REQUIRED',
    'NO_ACTIVE_CONNECTION',
    'MISSING_SCOPE',
    'SETTLEMENT_CURRENCY_UNAVAILABLE',
    'SETTLEMENT_STATEMENT_TOO_LARGE',
    'SETTLEMENT_STATEMENT_TIMEOUT',
    'SERVICE_UNAVAILABLE',
    'UPSTREAM_UNAVAILABLE',
    'UPSTREAM_TIMEOUT',
  )
  async statement(
    @CurrentPartner() partner: PartnerPrincipal,
    @Param('merchantId', new UuidParamPipe('merchantId', 'NO_ACTIVE_CONNECTION')) merchantId: string,
    @Query() query: SettlementStatementQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SettlementStatement | string> {
    const statement = await this.statements.statement(partner, merchantId, query);
    if (query.format !== 'csv') return statement;
    void reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${settlementCsvFileName(statement)}"`);
    return settlementStatementCsv(statement);
  }
}
