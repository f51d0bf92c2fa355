import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type SettlementStatement, SettlementStatementQuery, SettlementStatementView } from '@mm/contracts';
import { type AuthUser, CurrentUser, RequirePermission } from '../access/permissions';
import { ApiAdminRoute, ApiErrors } from '../common/api-errors';
import { MerchantStatementsService } from './merchant-statements.service';
import { STATEMENT_ROUTE_ERRORS, STATEMENT_ROUTE_RULES, statementReply } from './statement-reply';

/** The signed-in merchant's own settlement statements. */
@ApiTags('merchants')
@Controller('orchestrator/merchants')
export class MerchantStatementsController {
  constructor(private readonly statements: MerchantStatementsService) {}

  @Get('me/statements')
  @RequirePermission('merchant.read')
  @ApiAdminRoute('merchant.read')
  @ApiOperation({
    summary: "The signed-in merchant's settlement statement for a day or a period: opening balance, every movement, closing balance",
    description: STATEMENT_ROUTE_RULES,
  })
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({ type: SettlementStatementView, description: 'JSON; with format=csv the same statement as text/csv' })
  @ApiErrors(...STATEMENT_ROUTE_ERRORS, 'MERCHANT_NOT_FOUND')
  async mine(
    @CurrentUser() user: AuthUser,
    @Query() query: SettlementStatementQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SettlementStatement | string> {
    return statementReply(await this.statements.forUser(user.userId, query), query, reply);
  }
}
