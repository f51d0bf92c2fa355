import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { LedgerAdjustment, LedgerReversalLink } from '@mm/contracts';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { AccountAdjustmentsService } from './account-adjustments.service';
import { AdjustmentsQueryDto, ReversalsQueryDto } from './dto/statement-queries.dto';
import { AdjustmentViewDto, ReversalLinkView } from './dto/statement.views';

/**
 * What a holder's history needs from the ledger besides its payments: the adjustments on its
 * accounts (reversals and corrections), and which payments were reversed. Read by the
 * orchestrator's `GET /api/v1/transactions`.
 */
@ApiTags('statements')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS', 'SERVICE_NOT_ALLOWED')
@Controller('internal')
@UseGuards(ServiceKeyGuard)
export class StatementsController {
  constructor(private readonly adjustments: AccountAdjustmentsService) {}

  @Get('adjustments')
  @ApiOperation({ summary: 'Adjustments (reversals and corrections) touching these accounts, newest first, with their net change on them' })
  @ApiOkResponse({ type: [AdjustmentViewDto] })
  @ApiErrors('VALIDATION_ERROR')
  list(@Query() query: AdjustmentsQueryDto): Promise<LedgerAdjustment[]> {
    return this.adjustments.adjustments(query);
  }

  @Get('reversals')
  @ApiOperation({ summary: 'Which of these transactions were reversed, and by which transaction' })
  @ApiOkResponse({ type: [ReversalLinkView], description: 'one per reversed transaction; the others are absent' })
  @ApiErrors('VALIDATION_ERROR')
  reversals(@Query() query: ReversalsQueryDto): Promise<LedgerReversalLink[]> {
    return this.adjustments.reversals(query.transactionIds);
  }
}
