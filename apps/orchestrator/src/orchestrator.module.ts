import { type DynamicModule, Module } from '@nestjs/common';
import { INTERNAL_CALLER_TABLE, PlatformModule } from '@mm/platform';
import { AccessModule } from './access/access.module';
import { ApprovalsModule } from './approvals/approvals.module';
import { BackofficePartnersModule } from './backoffice/partners/backoffice-partners.module';
import { BackofficeWebhooksModule } from './backoffice/webhooks/backoffice-webhooks.module';
import { LedgerOperationsModule } from './backoffice/ledger-operations/ledger-operations.module';
import { PeopleModule } from './backoffice/people/people.module';
import { ComplianceModule } from './compliance/compliance.module';
import { ReconciliationModule } from './reconciliation/reconciliation.module';
import { ConfigApiModule } from './config-api/config-api.module';
import { IdentitiesModule } from './identities/identities.module';
import { GatewayModule } from './gateway/gateway.module';
import { ORCHESTRATOR_INTERNAL_CALLERS } from './internal-callers';
import { IntentsModule } from './intents/intents.module';
import { LimitsModule } from './limits/limits.module';
import { MonitoringModule } from './monitoring/monitoring.module';
import { RegulatoryReportsModule } from './regulatory-reports/regulatory-reports.module';
import { type OrchestratorConfig, assertOrchestratorProductionConfig } from './orchestrator.config';
import { PartnerLinksModule } from './partner-links/partner-links.module';
import { PricingModule } from './pricing/pricing.module';
import { NotificationsModule } from './notifications/notifications.module';
import { RegistrationModule } from './registration/registration.module';
import { RiskModule } from './risk/risk.module';
import { StaffAuditModule } from './staff-audit/staff-audit.module';
import { TransactionsModule } from './transactions/transactions.module';
import { BackofficeTransactionsModule } from './backoffice/transactions/backoffice-transactions.module';
import { BackofficeWorkflowsModule } from './backoffice/workflows/workflows.module';
import { WithdrawalQrModule } from './withdrawal-qr/withdrawal-qr.module';
import { StatementsModule } from './statements/statements.module';

@Module({})
export class OrchestratorModule {
  static forRoot(config: OrchestratorConfig): DynamicModule {
    assertOrchestratorProductionConfig(config);
    return {
      module: OrchestratorModule,
      imports: [
        PlatformModule.forRoot({
          service: 'orchestrator',
          config,
          database: { schema: 'orchestrator' },
          redis: true,
        }),
        StaffAuditModule,
        AccessModule,
        ApprovalsModule,
        GatewayModule,
        ConfigApiModule,
        PricingModule,
        LimitsModule,
        RiskModule,
        ComplianceModule,
        ReconciliationModule,
        NotificationsModule.forRoot(config),
        IdentitiesModule,
        RegistrationModule,
        PartnerLinksModule,
        IntentsModule,
        WithdrawalQrModule,
        TransactionsModule,
        BackofficeWebhooksModule,
        BackofficePartnersModule,
        BackofficeTransactionsModule,
        BackofficeWorkflowsModule,
        LedgerOperationsModule,
        PeopleModule,
        MonitoringModule,
        RegulatoryReportsModule,
        StatementsModule,
      ],
      providers: [{ provide: INTERNAL_CALLER_TABLE, useValue: ORCHESTRATOR_INTERNAL_CALLERS }],
    };
  }
}
