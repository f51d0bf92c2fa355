import { Module } from '@nestjs/common';
import { IdentitiesModule } from '../identities/identities.module';
import { LedgerStatementsClient } from './ledger-statements.client';
import { TransactionHistoryService } from './transaction-history.service';
import { TransactionsController } from './transactions.controller';

/** `GET /api/v1/transactions` and receipts; the history is also read by the back office's person view. */
@Module({
  imports: [IdentitiesModule],
  controllers: [TransactionsController],
  providers: [TransactionHistoryService, LedgerStatementsClient],
  exports: [TransactionHistoryService, LedgerStatementsClient],
})
export class TransactionsModule {}
