import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { type RegulatoryOperationPageView as Page, RegulatoryOperationPageView } from '@mm/contracts';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { RegulatoryOperationsQueryDto } from './regulatory-operations.query';
import { RegulatoryOperationsService } from './regulatory-operations.service';

/**
 * The ledger's facts behind the orchestrator's regulatory reports (docs/regulatory-reports.md):
 * the orchestrator, which authorises its compliance officers itself and also runs the daily report
 * with nobody signed in, is the only caller.
 */
@ApiTags('regulatory')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS', 'SERVICE_NOT_ALLOWED')
@Controller('internal/regulatory')
@UseGuards(ServiceKeyGuard)
export class RegulatoryController {
  constructor(private readonly operations: RegulatoryOperationsService) {}

  @Get('operations')
  @ApiOperation({
    summary: 'Succeeded cash-ins, cash-outs and transfers of one currency in a window, at or above an amount, oldest first',
    description:
      'Every transaction an intent committed with `completedAt` in [from, to) and `amount` ≥ minAmount, with both accounts and the ' +
      'owners of their wallets. Adjustments (corrections, reversals) are not listed. Keyset pages ordered by completion time, then reference.',
  })
  @ApiOkResponse({ type: RegulatoryOperationPageView })
  @ApiErrors('VALIDATION_ERROR', 'REPORT_PERIOD_INVALID')
  list(@Query() query: RegulatoryOperationsQueryDto): Promise<Page> {
    return this.operations.operations(query);
  }
}
