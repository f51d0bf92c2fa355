import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { OPERATION_KEY } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { RequirePermission } from '../../access/permissions';
import { ApiAdminRoute, ApiErrors } from '../../common/api-errors';
import { AuditedRead } from '../../staff-audit/audit-metadata';
import { PaymentStoryView } from './dto/payment-story.views';
import { TransactionSearchQuery } from './dto/transaction-search.query';
import { BackofficeTransactionPage } from './dto/transaction-search.views';
import { PaymentStoryService } from './payment-story.service';
import { TransactionSearchService } from './transaction-search.service';

/**
 * Transactions for staff: one search over every operation the ledger holds (whatever became of
 * it), and the story of one payment. Both read people's data, so staff reads are audited.
 */
@ApiTags('back office: transactions')
@Controller('backoffice/transactions')
export class BackofficeTransactionsController {
  constructor(
    private readonly search: TransactionSearchService,
    private readonly stories: PaymentStoryService,
  ) {}

  @Get()
  @RequirePermission('operations.read')
  @ApiAdminRoute('operations.read')
  @AuditedRead({ type: 'transaction', query: 'reference' })
  @ApiOperation({
    summary: 'Operations newest first: by reference, phone, account, type, status, amount range and date range; cursor pages',
    description:
      'Every intent whatever became of it (created, failed, expired, succeeded) and every adjustment (an operator’s correction or reversal), as the ledger holds them, with the parties the orchestrator recorded. ' +
      'Filters combine with AND. A phone stands for all the accounts of the person who has it (none: an empty page). ' +
      'Pass nextCursor back as cursor, with the same filters, until it is null. Field codes: INVALID_REFERENCE, INVALID_PHONE_FORMAT, INVALID_UUID, INVALID_TYPE, INVALID_STATUS, INVALID_AMOUNT, INVALID_AMOUNT_RANGE, INVALID_DATE, INVALID_DATE_RANGE, INVALID_CURSOR, INVALID_LIMIT.',
  })
  @ApiOkResponse({ type: BackofficeTransactionPage })
  @ApiErrors('VALIDATION_ERROR', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT')
  list(@Query() query: TransactionSearchQuery): Promise<BackofficeTransactionPage> {
    return this.search.search(query);
  }

  @Get(':reference/story')
  @RequirePermission('operations.read')
  @ApiAdminRoute('operations.read')
  @AuditedRead({ type: 'transaction', param: 'reference' })
  @ApiParam({
    name: 'reference',
    description: 'a transaction reference, or an intent id (the ledger’s or the public one) for an intent that never completed',
    schema: { type: 'string', pattern: OPERATION_KEY.source, example: 'MMPTX2611220A1B2C3' },
  })
  @ApiOperation({
    summary:
      'The story of one payment: intent and its status changes, risk decisions, fee quoted and charged, commission, journal entries, SMS, partner order, reversal links',
    description:
      'Each part is read where its data lives (ledger, orchestrator, partners). A part that cannot be read now names the stable code of why in its own `unavailable` field, and the rest of the page is answered.',
  })
  @ApiOkResponse({ type: PaymentStoryView })
  @ApiErrors('TRANSACTION_NOT_FOUND')
  story(@Param('reference') reference: string): Promise<PaymentStoryView> {
    // A key that is neither a reference nor an id cannot exist: the same 404 as an unknown one.
    if (!OPERATION_KEY.test(reference)) throw new AppException('TRANSACTION_NOT_FOUND');
    return this.stories.story(reference);
  }
}
