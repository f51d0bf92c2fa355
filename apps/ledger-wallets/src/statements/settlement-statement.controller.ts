import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { LedgerAccountStatement } from '@mm/contracts';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { SettlementStatementRangeQuery } from './dto/settlement-statement.query';
import { LedgerAccountStatementView } from './dto/settlement-statement.views';
import { SettlementStatementService } from './settlement-statement.service';

/**
 * A settlement statement of one account, computed from the ledger's own entries and balance. The
 * orchestrator asks it for a merchant (its own app, the back office, and partners through its
 * internal listener), then adds the partner orders (docs/statements.md).
 */
@ApiTags('statements')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS', 'SERVICE_NOT_ALLOWED')
@Controller('internal/accounts')
@UseGuards(ServiceKeyGuard)
export class SettlementStatementController {
  constructor(private readonly statements: SettlementStatementService) {}

  @Get(':id/settlement-statement')
  @ApiOperation({
    summary: 'The account over [from, to): opening balance, every entry booked in between with the balance after it, closing balance',
    description:
      'Read in one snapshot: closing = stored balance − entries booked from `to` on, opening = stored balance − entries booked from `from` on, ' +
      `so opening + the lines = closing. At most 32 days (400 SETTLEMENT_PERIOD_INVALID) and 20000 entries (422 SETTLEMENT_STATEMENT_TOO_LARGE).`,
  })
  @ApiParam({ name: 'id', format: 'uuid', description: 'the account' })
  @ApiOkResponse({ type: LedgerAccountStatementView })
  @ApiErrors('VALIDATION_ERROR', 'SETTLEMENT_PERIOD_INVALID', 'ACCOUNT_NOT_FOUND', 'SETTLEMENT_STATEMENT_TOO_LARGE')
  statement(@Param('id', UuidParamPipe) accountId: string, @Query() query: SettlementStatementRangeQuery): Promise<LedgerAccountStatement> {
    return this.statements.statement(accountId, query.from, query.to);
  }
}
