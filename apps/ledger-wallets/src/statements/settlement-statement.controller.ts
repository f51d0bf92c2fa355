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
    summary: 'The account over [from, to): opening balance, the entries applied in between with the balance after each, closing balance',
    description:
      "Read in one snapshot on the statements' own connections (never a payment's session). The lines are the run of the account's chain " +
      'from the first entry stamped at or after `from` to the first stamped at or after `to` (excluded), in the order applied; ' +
      'closing = stored balance − the entries from the `to` cut on, opening likewise from the `from` cut, so opening + the lines = closing. ' +
      '`final` once `to` is LEDGER_STATEMENT_FINAL_AFTER_MS (5 min) old. At most 32 days (400 SETTLEMENT_PERIOD_INVALID), starting at most ' +
      'LEDGER_STATEMENT_MAX_AGE_DAYS (400) back (400 SETTLEMENT_PERIOD_TOO_OLD), at most LEDGER_STATEMENT_MAX_LINES (20000) entries ' +
      '(422 SETTLEMENT_STATEMENT_TOO_LARGE); a read cancelled by its statement_timeout is 503 SETTLEMENT_STATEMENT_TIMEOUT, all statement ' +
      'connections busy 503 SERVICE_UNAVAILABLE.',
  })
  @ApiParam({ name: 'id', format: 'uuid', description: 'the account' })
  @ApiOkResponse({ type: LedgerAccountStatementView })
  @ApiErrors(
    'VALIDATION_ERROR',
    'SETTLEMENT_PERIOD_INVALID',
    'SETTLEMENT_PERIOD_TOO_OLD',
    'ACCOUNT_NOT_FOUND',
    'SETTLEMENT_STATEMENT_TOO_LARGE',
    'SETTLEMENT_STATEMENT_TIMEOUT',
    'SERVICE_UNAVAILABLE',
  )
  statement(@Param('id', UuidParamPipe) accountId: string, @Query() query: SettlementStatementRangeQuery): Promise<LedgerAccountStatement> {
    return this.statements.statement(accountId, query.from, query.to);
  }
}
