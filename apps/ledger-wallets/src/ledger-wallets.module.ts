import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@mm/platform';
import { AccountAuditService } from './audit/account-audit.service';
import { AuditController } from './audit/audit.controller';
import { LedgerDb } from './db/ledger-db.service';
import { TransferExecutor } from './execution/transfer-executor.service';
import { IdempotencyService } from './idempotency/idempotency.service';
import { IntegrityCheckService } from './integrity/integrity-check.service';
import { IntegrityScheduler } from './integrity/integrity-scheduler.service';
import { IntegrityController } from './integrity/integrity.controller';
import { ExpirySweeper } from './intents/expiry-sweeper.service';
import { IntentTransitionService } from './intents/intent-transition.service';
import { IntentsController } from './intents/intents.controller';
import { IntentsService } from './intents/intents.service';
import type { LedgerWalletsConfig } from './ledger-wallets.config';
import { BalanceAdjustmentsService } from './legacy/balance-adjustments.service';
import { LegacyController } from './legacy/legacy.controller';
import { LegacyTransactionsService } from './legacy/legacy-transactions.service';
import { OutboxRelay } from './outbox/outbox-relay.service';
import { TechnicalAccountsService } from './wallets/technical-accounts.service';
import { WalletsController } from './wallets/wallets.controller';
import { WalletsService } from './wallets/wallets.service';

@Module({})
export class LedgerWalletsModule {
  static forRoot(config: LedgerWalletsConfig): DynamicModule {
    return {
      module: LedgerWalletsModule,
      imports: [PlatformModule.forRoot({ service: 'ledger-wallets', config, database: { schema: 'ledger' }, redis: true })],
      controllers: [WalletsController, IntentsController, LegacyController, AuditController, IntegrityController],
      providers: [
        LedgerDb,
        IdempotencyService,
        TechnicalAccountsService,
        WalletsService,
        IntentsService,
        IntentTransitionService,
        TransferExecutor,
        ExpirySweeper,
        LegacyTransactionsService,
        BalanceAdjustmentsService,
        AccountAuditService,
        IntegrityCheckService,
        IntegrityScheduler,
        OutboxRelay,
      ],
    };
  }
}
