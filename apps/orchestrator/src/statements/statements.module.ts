import { Module } from '@nestjs/common';
import { IdentitiesModule } from '../identities/identities.module';
import { BackofficeStatementsController } from './backoffice-statements.controller';
import { InternalStatementsController } from './internal-statements.controller';
import { MerchantStatementsController } from './merchant-statements.controller';
import { MerchantStatementsService } from './merchant-statements.service';
import { StatementSourcesClient } from './statement-sources.client';

/**
 * Merchants' settlement statements (docs/statements.md): the merchant's own
 * (`/api/orchestrator/merchants/me/statements`), staff's (`/api/backoffice/merchants/:id/statements`),
 * and the ledger part partners completes (`/api/internal/statements/merchants/:id`).
 */
@Module({
  imports: [IdentitiesModule],
  controllers: [MerchantStatementsController, BackofficeStatementsController, InternalStatementsController],
  providers: [MerchantStatementsService, StatementSourcesClient],
})
export class StatementsModule {}
