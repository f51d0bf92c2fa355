import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { PaidOrdersAnswer } from '@mm/contracts';
import { ServiceKeyGuard, ApiErrors } from '@mm/platform';
import { PaidOrdersAnswerView, PaidOrdersLookupDto } from './dto/paid-orders.dto';
import { PaidOrdersService } from './paid-orders.service';

/**
 * Internal (service key): the orchestrator names the partner order each payment of a merchant's
 * settlement statement paid (docs/statements.md). A POST because a day's payments do not fit a URL.
 */
@ApiTags('internal: statements')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS', 'SERVICE_NOT_ALLOWED')
@Controller('internal/partners/statements')
@UseGuards(ServiceKeyGuard)
export class PaidOrdersController {
  constructor(private readonly paidOrders: PaidOrdersService) {}

  @Post('paid-orders')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Which of these ledger transactions paid a live order (the order id and its external reference), and which partners has not applied yet',
    description:
      'Reads only. `orders`: the transactions that paid a live order (of any integration, or of `integrationId` alone when given); ' +
      '`unapplied`: the transactions whose ledger event partners has not applied yet (their order, if any, is not known yet).',
  })
  @ApiOkResponse({ type: PaidOrdersAnswerView })
  @ApiErrors('VALIDATION_ERROR', 'MALFORMED_JSON')
  lookup(@Body() dto: PaidOrdersLookupDto): Promise<PaidOrdersAnswer> {
    return this.paidOrders.lookup(dto.transactionIds);
  }
}
