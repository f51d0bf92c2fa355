import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type SettlementStatement, SettlementStatementQuery, SettlementStatementView } from '@mm/contracts';
import { RequirePermission } from '../access/permissions';
import { uuid } from '../common/validators';
import { ApiAdminRoute, ApiErrors } from '../common/api-errors';
import { AuditedRead } from '../staff-audit/audit-metadata';
import { MerchantStatementsService } from './merchant-statements.service';
import { STATEMENT_ROUTE_ERRORS, STATEMENT_ROUTE_RULES, statementReply } from './statement-reply';

/** Staff read any merchant's settlement statement; each read is in the staff audit trail. */
@ApiTags('backoffice: statements')
@Controller('backoffice/merchants')
export class BackofficeStatementsController {
  constructor(private readonly statements: MerchantStatementsService) {}

  @Get(':merchantId/statements')
  @RequirePermission('statements.read')
  @ApiAdminRoute('statements.read')
  @AuditedRead({ type: 'merchant', param: 'merchantId' })
  @ApiOperation({
    summary: "A merchant's settlement statement for a day or a period, as the merchant sees it (recorded in the staff audit trail)",
    description: STATEMENT_ROUTE_RULES,
  })
  @ApiParam({ name: 'merchantId', format: 'uuid' })
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({ type: SettlementStatementView, description: 'JSON; with format=csv the same statement as text/csv' })
  @ApiErrors(...STATEMENT_ROUTE_ERRORS, 'MERCHANT_NOT_FOUND')
  async statement(
    @Param('merchantId', uuid('merchantId')) merchantId: string,
    @Query() query: SettlementStatementQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SettlementStatement | string> {
    return statementReply(await this.statements.forMerchant(merchantId, query), query, reply);
  }
}
