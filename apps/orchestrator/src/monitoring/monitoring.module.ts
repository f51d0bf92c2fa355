import { Module, type OnModuleInit } from '@nestjs/common';
import { ApprovalRegistry } from '../approvals/approval-registry';
import { ApprovalsModule } from '../approvals/approvals.module';
import { PeopleModule } from '../backoffice/people/people.module';
import { ConfigApiModule } from '../config-api/config-api.module';
import { IdentitiesModule } from '../identities/identities.module';
import { GatewayModule } from '../gateway/gateway.module';
import { StaffAuditStore } from '../staff-audit/staff-audit.store';
import { CASE_FACTS } from './case-facts';
import { AlertWriter } from './cases/alert-writer';
import { CaseActions } from './cases/case-actions.service';
import { CaseFactsService } from './cases/case-facts.service';
import { CaseFreezeHandler } from './cases/case-freeze.handler';
import { CaseQueries } from './cases/case-queries.service';
import { CaseStore } from './cases/case.store';
import { OfficersClient } from './cases/officers.client';
import { PersonReadAudit } from './cases/person-read.audit';
import { AccountOwners } from './feed/account-owners';
import { MonitoringFeed } from './feed/monitoring-feed.service';
import { MonitoringWorker } from './feed/monitoring.worker';
import { MonitoringController } from './monitoring.controller';
import { MonitoringRulesService } from './rules/monitoring-rules.service';
import { RULE_PROVIDERS, RuleSet } from './rules/rule-set';

import { MonitoringConfigController } from './rules/monitoring-config.controller';
import { MonitoringConfigSection } from './rules/monitoring-section';
/**
 * Transaction monitoring (docs/monitoring.md): the feed of completed operations from the ledger's
 * outbox (`monitoring-events`), the rules, alerts and the compliance cases officers work, and the
 * CASE_FREEZE action of the maker-checker engine. Exports `CASE_FACTS` (the case facts contract)
 * for the regulatory reports module.
 */
@Module({
  imports: [ApprovalsModule, ConfigApiModule, IdentitiesModule, GatewayModule, PeopleModule],
  controllers: [MonitoringController, MonitoringConfigController],
  providers: [
    MonitoringConfigSection,
    ...RULE_PROVIDERS,
    RuleSet,
    AccountOwners,
    MonitoringFeed,
    MonitoringWorker,
    MonitoringRulesService,
    CaseStore,
    AlertWriter,
    CaseQueries,
    CaseActions,
    OfficersClient,
    CaseFreezeHandler,
    CaseFactsService,
    PersonReadAudit,
    StaffAuditStore,
    { provide: CASE_FACTS, useExisting: CaseFactsService },
  ],
  exports: [CASE_FACTS],
})
export class MonitoringModule implements OnModuleInit {
  constructor(
    private readonly registry: ApprovalRegistry,
    private readonly freeze: CaseFreezeHandler,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.freeze);
  }
}
