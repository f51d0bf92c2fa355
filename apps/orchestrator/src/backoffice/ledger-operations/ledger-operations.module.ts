import { Module, type OnModuleInit } from '@nestjs/common';
import { ApprovalRegistry } from '../../approvals/approval-registry';
import { ApprovalsModule } from '../../approvals/approvals.module';
import { IdentitiesModule } from '../../identities/identities.module';
import { HoldPlaceHandler, HoldReleaseHandler } from './hold.handlers';
import { FloatFundingHandler, LedgerCorrectionHandler, LedgerReversalHandler } from './ledger-correction.handlers';
import { LedgerCorrectionRunner } from './ledger-correction.runner';
import { LedgerOperationsClient } from './ledger-operations.client';
import { LedgerOperationsController } from './ledger-operations.controller';
import { LedgerOperationsService } from './ledger-operations.service';

/**
 * Staff ledger operations through `/api/backoffice/ledger`: corrections, reversals, agent float
 * funding and holds, each an action of the maker-checker engine whose handler this module
 * registers when it starts.
 */
@Module({
  imports: [ApprovalsModule, IdentitiesModule],
  controllers: [LedgerOperationsController],
  providers: [
    LedgerOperationsClient,
    LedgerOperationsService,
    LedgerCorrectionRunner,
    LedgerCorrectionHandler,
    LedgerReversalHandler,
    FloatFundingHandler,
    HoldPlaceHandler,
    HoldReleaseHandler,
  ],
})
export class LedgerOperationsModule implements OnModuleInit {
  constructor(
    private readonly registry: ApprovalRegistry,
    private readonly correction: LedgerCorrectionHandler,
    private readonly reversal: LedgerReversalHandler,
    private readonly floatFunding: FloatFundingHandler,
    private readonly holdPlace: HoldPlaceHandler,
    private readonly holdRelease: HoldReleaseHandler,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.correction);
    this.registry.register(this.reversal);
    this.registry.register(this.floatFunding);
    this.registry.register(this.holdPlace);
    this.registry.register(this.holdRelease);
  }
}
