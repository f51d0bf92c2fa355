import { type DynamicModule, Module } from '@nestjs/common';
import { INTERNAL_CALLER_TABLE, PlatformModule } from '@mm/platform';
import { AccountAuditService } from './audit/account-audit.service';
import { AuditController } from './audit/audit.controller';
import { ChainAnchorsController } from './chain/chain-anchors.controller';
import { ChainAnchors } from './chain/chain-anchors.service';
import { ChainVerifier } from './chain/chain-verifier.service';
import { ChainController } from './chain/chain.controller';
import { ConsentProofVerifier } from './consent/consent-proof.verifier';
import { CorrectionAlerts } from './corrections/correction-alerts.service';
import { CorrectionApproval } from './corrections/correction-approval.service';
import { CorrectionPreviewService } from './corrections/correction-preview.service';
import { CorrectionsController } from './corrections/corrections.controller';
import { CorrectionsService } from './corrections/corrections.service';
import { CorrectionsSettings } from './corrections/corrections.settings';
import { OperatorTokens } from './corrections/operator-tokens.service';
import { LedgerDb } from './db/ledger-db.service';
import { HoldsController } from './holds/holds.controller';
import { HoldsService } from './holds/holds.service';
import { TransferExecutor } from './execution/transfer-executor.service';
import { IdempotencyService } from './idempotency/idempotency.service';
import { ComplianceChannel } from './common/compliance-channel.service';
import { IntegrityCheckService } from './integrity/integrity-check.service';
import { IntegrityScheduler } from './integrity/integrity-scheduler.service';
import { IntegrityController } from './integrity/integrity.controller';
import { ExpirySweeper } from './intents/expiry-sweeper.service';
import { IntentTransitionService } from './intents/intent-transition.service';
import { IntentsController } from './intents/intents.controller';
import { IntentsService } from './intents/intents.service';
import { LEDGER_INTERNAL_CALLERS } from './internal-callers';
import { type LedgerWalletsConfig, assertLedgerProductionConfig } from './ledger-wallets.config';
import { OperatorSearchController } from './operator-search/operator-search.controller';
import { OperatorSearchService } from './operator-search/operator-search.service';
import { OutboxRelay } from './outbox/outbox-relay.service';
import { QrPaymentsController } from './qr-payments/qr-payments.controller';
import { QrPaymentsService } from './qr-payments/qr-payments.service';
import { ReconciliationAlertsService } from './reconciliation/reconciliation-alerts.service';
import { ReconciliationController } from './reconciliation/reconciliation.controller';
import { ReconciliationRunsService } from './reconciliation/reconciliation-runs.service';
import { BankStatementsReader, StatementImportService } from './reconciliation/statement-import.service';
import { ReconciliationSettings } from './reconciliation/trust-accounts';
import { RegulatoryController } from './regulatory/regulatory.controller';
import { RegulatoryOperationsService } from './regulatory/regulatory-operations.service';
import { AccountAdjustmentsService } from './statements/account-adjustments.service';
import { StatementsController } from './statements/statements.controller';
import { SettlementStatementController } from './statements/settlement-statement.controller';
import { SettlementStatementService } from './statements/settlement-statement.service';
import { StatementReadPool } from './statements/statement-read-pool';
import { TestFundingController } from './test-funding/test-funding.controller';
import { TestFundingService } from './test-funding/test-funding.service';
import { TechnicalAccountsService } from './wallets/technical-accounts.service';
import { WalletsController } from './wallets/wallets.controller';
import { WalletsService } from './wallets/wallets.service';

@Module({})
export class LedgerWalletsModule {
  static forRoot(config: LedgerWalletsConfig): DynamicModule {
    assertLedgerProductionConfig(config);
    return {
      module: LedgerWalletsModule,
      imports: [PlatformModule.forRoot({ service: 'ledger-wallets', config, database: { schema: 'ledger' }, redis: true })],
      controllers: [
        WalletsController,
        IntentsController,
        TestFundingController,
        AuditController,
        IntegrityController,
        ChainController,
        ChainAnchorsController,
        CorrectionsController,
        StatementsController,
        SettlementStatementController,
        OperatorSearchController,
        HoldsController,
        RegulatoryController,
        ReconciliationController,
        QrPaymentsController,
      ],
      providers: [
        { provide: INTERNAL_CALLER_TABLE, useValue: LEDGER_INTERNAL_CALLERS },
        LedgerDb,
        IdempotencyService,
        TechnicalAccountsService,
        WalletsService,
        IntentsService,
        IntentTransitionService,
        ConsentProofVerifier,
        TransferExecutor,
        ExpirySweeper,
        TestFundingService,
        AccountAuditService,
        IntegrityCheckService,
        IntegrityScheduler,
        ChainAnchors,
        ChainVerifier,
        OutboxRelay,
        ComplianceChannel,
        CorrectionsSettings,
        OperatorTokens,
        CorrectionsService,
        CorrectionApproval,
        CorrectionAlerts,
        AccountAdjustmentsService,
        SettlementStatementService,
        StatementReadPool,
        OperatorSearchService,
        CorrectionPreviewService,
        HoldsService,
        RegulatoryOperationsService,
        ReconciliationSettings,
        StatementImportService,
        BankStatementsReader,
        ReconciliationRunsService,
        ReconciliationAlertsService,
        QrPaymentsService,
      ],
    };
  }
}
