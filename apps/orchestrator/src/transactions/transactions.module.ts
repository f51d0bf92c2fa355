import { Module } from '@nestjs/common';
import { CustomersModule } from '../customers/customers.module';
import { LedgerStatementsClient } from './ledger-statements.client';
import { TransactionHistoryService } from './transaction-history.service';
import { TransactionsController } from './transactions.controller';

/** `GET /api/v1/transactions` and receipts; the history is also read by the back office's person view. */
@Module({
  imports: [CustomersModule],
  controllers: [TransactionsController],
  providers: [TransactionHistoryService, LedgerStatementsClient],
  exports: [TransactionHistoryService, LedgerStatementsClient],
})
export class TransactionsModule {}
