import { Module } from '@nestjs/common';
import { TransactionHistoryService } from './transaction-history.service';
import { TransactionsController } from './transactions.controller';

/** `GET /api/v1/transactions` and receipts. */
@Module({
  controllers: [TransactionsController],
  providers: [TransactionHistoryService],
})
export class TransactionsModule {}
