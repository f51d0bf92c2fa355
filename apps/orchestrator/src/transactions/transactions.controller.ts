import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AppException } from '@mm/errors';
import { type AuthUser, CurrentUser, RequirePermission } from '../access/permissions';
import { ApiErrors } from '../common/api-errors';
import { TransactionQueryDto } from './dto/transaction-query.dto';
import { TransactionPage, TransactionView } from './dto/transaction.views';
import { TransactionHistoryService } from './transaction-history.service';

const REFERENCE = /^[A-Z]{3}TX\d{6}[A-Z0-9]{7}$/;

/** History and receipts of completed payments and of the adjustments of the caller's accounts, scoped by role (docs/mobile-api.md). */
@ApiTags('transactions')
@ApiBearerAuth()
@Controller('v1/transactions')
@RequirePermission('transactions.read')
export class TransactionsController {
  constructor(private readonly history: TransactionHistoryService) {}

  @Get()
  @ApiOperation({
    summary: 'Completed payments, their reversals and the corrections of your balance, newest first',
    description:
      "An end user or merchant sees what it paid or received; an agent the cash operations it made; a master agent also its agents'; support, compliance and administrators everything. " +
      'Besides payments, the caller sees every adjustment of its own accounts: the REVERSAL of a payment (linked both ways: `reverses` on the reversal, `reversedBy` on the payment) and any other CORRECTION, so that the `balanceChange` of all its lines adds up to its balance. ' +
      'Keyset pages: pass nextCursor back as cursor until it is null; with `type`, a page may hold fewer than `limit` lines.',
  })
  @ApiOkResponse({ type: TransactionPage })
  @ApiErrors('VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT')
  list(@CurrentUser() user: AuthUser, @Query() query: TransactionQueryDto): Promise<TransactionPage> {
    return this.history.list(user, query);
  }

  @Get(':referenceId')
  @ApiOperation({
    summary: 'Receipt of one payment (with `reversedBy` once reversed), or of a reversal or correction of your own accounts',
  })
  @ApiParam({ name: 'referenceId', schema: { type: 'string', pattern: REFERENCE.source, example: 'MMPTX2611220A1B2C3' } })
  @ApiOkResponse({ type: TransactionView })
  @ApiErrors('TRANSACTION_NOT_FOUND', 'UNAUTHORIZED', 'FORBIDDEN', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT')
  receipt(@CurrentUser() user: AuthUser, @Param('referenceId') referenceId: string): Promise<TransactionView> {
    // A malformed reference cannot exist: the same 404 as an unknown one.
    if (!REFERENCE.test(referenceId)) throw new AppException('TRANSACTION_NOT_FOUND');
    return this.history.receipt(user, referenceId);
  }
}
