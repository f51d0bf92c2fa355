import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { type LedgerOperationPage, type LedgerOperationStory, OPERATION_KEY } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { OperationSearchQueryDto } from './dto/operation-search.query';
import { LedgerOperationPageView, LedgerOperationStoryView } from './dto/operation.views';
import { OperatorSearchService } from './operator-search.service';

/**
 * The back office's reads of operations
 * (docs/ledger.md "Operator search: operations for the back office"): the orchestrator relays
 * `GET /api/backoffice/transactions` and the story of one payment here, for staff it has
 * authorised. The orchestrator is the only caller.
 */
@ApiTags('operator search')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS', 'SERVICE_NOT_ALLOWED')
@Controller('internal/operator-search')
@UseGuards(ServiceKeyGuard)
export class OperatorSearchController {
  constructor(private readonly search: OperatorSearchService) {}

  @Get('operations')
  @ApiOperation({ summary: 'Intents and adjustments, newest first, by reference, accounts, type, status, amount and time; keyset pages' })
  @ApiOkResponse({ type: LedgerOperationPageView })
  @ApiErrors('VALIDATION_ERROR')
  list(@Query() query: OperationSearchQueryDto): Promise<LedgerOperationPage> {
    return this.search.search(query);
  }

  @Get('operations/:key')
  @ApiOperation({ summary: "One operation with its intent's journal and the entries of its transaction (and of its reversal)" })
  @ApiParam({
    name: 'key',
    description: 'a transaction reference, or an intent id (another shape answers 404 TRANSACTION_NOT_FOUND)',
    schema: { type: 'string', pattern: OPERATION_KEY.source, example: 'MMPTX2611220A1B2C3' },
  })
  @ApiOkResponse({ type: LedgerOperationStoryView })
  @ApiErrors('TRANSACTION_NOT_FOUND')
  story(@Param('key') key: string): Promise<LedgerOperationStory> {
    if (!OPERATION_KEY.test(key)) throw new AppException('TRANSACTION_NOT_FOUND');
    return this.search.story(key);
  }
}
