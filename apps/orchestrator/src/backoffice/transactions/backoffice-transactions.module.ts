import { Module } from '@nestjs/common';
import { IdentitiesModule } from '../../identities/identities.module';
import { MerchantQrClient } from '../../intents/merchant-qr.client';
import { BackofficeWebhooksModule } from '../webhooks/backoffice-webhooks.module';
import { BackofficeTransactionsController } from './backoffice-transactions.controller';
import { OperatorSearchClient } from './operator-search.client';
import { PaymentStoryService } from './payment-story.service';
import { TransactionSearchService } from './transaction-search.service';

/** Transactions for staff (`/api/backoffice/transactions`): the search and the story of one payment. */
@Module({
  imports: [IdentitiesModule, BackofficeWebhooksModule],
  controllers: [BackofficeTransactionsController],
  providers: [TransactionSearchService, PaymentStoryService, OperatorSearchClient, MerchantQrClient],
})
export class BackofficeTransactionsModule {}
