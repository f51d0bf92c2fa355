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
import { ApiErrors } from '../common/api-errors';
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
      'Every line is one ledger entry on the merchant account; a payment that paid an order of any partner names it (order). ' +
      'openingBalance + totalCredits − totalDebits = closingBalance. format=csv answers text/csv (columns in docs/statements.md), the same bytes for the same period once it is over.',
  })
  @ApiParam({ name: 'merchantId', format: 'uuid' })
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({ type: SettlementStatementView, description: 'JSON; with format=csv the same statement as text/csv' })
  @ApiErrors(
    'VALIDATION_ERROR',
    'SETTLEMENT_PERIOD_INVALID',
    'SETTLEMENT_FORMAT_INVALID',
    'UNSUPPORTED_CURRENCY',
    'SETTLEMENT_LIVE_KEY_REQUIRED',
    'NO_ACTIVE_CONNECTION',
    'MISSING_SCOPE',
    'SETTLEMENT_CURRENCY_UNAVAILABLE',
    'SETTLEMENT_STATEMENT_TOO_LARGE',
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
