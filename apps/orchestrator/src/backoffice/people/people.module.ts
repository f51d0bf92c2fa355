import { Module, type OnModuleInit } from '@nestjs/common';
import { ApprovalRegistry } from '../../approvals/approval-registry';
import { ApprovalsModule } from '../../approvals/approvals.module';
import { ConfigApiModule } from '../../config-api/config-api.module';
import { IdentitiesModule } from '../../identities/identities.module';
import { GatewayModule } from '../../gateway/gateway.module';
import { PartnerLinksModule } from '../../partner-links/partner-links.module';
import { TransactionsModule } from '../../transactions/transactions.module';
import { CustomerUnfreezeHandler } from './customer-unfreeze.handler';
import { LimitUsageReader } from './limit-usage.reader';
import { PeopleController } from './people.controller';
import { PeopleSearchService } from './people-search.service';
import { PeopleUpstreams } from './people-upstreams.client';
import { Person360Service } from './person-360.service';
import { PersonActionsService } from './person-actions.service';
import { StaffRoleChangeHandler } from './staff-role-change.handler';
import { StaffDisableHandler, StaffEnableHandler } from './staff-access.handlers';
import { StaffTotpResetHandler } from './staff-totp-reset.handler';

/**
 * People for staff (`/api/backoffice/people`): search, the 360 view, freeze and the sessions, and
 * the maker-checker actions on people it owns (CUSTOMER_UNFREEZE, STAFF_ROLE_CHANGE,
 * STAFF_TOTP_RESET, STAFF_DISABLE, STAFF_ENABLE), registered with the engine when the module starts.
 */
@Module({
  imports: [IdentitiesModule, ApprovalsModule, ConfigApiModule, GatewayModule, TransactionsModule, PartnerLinksModule],
  controllers: [PeopleController],
  providers: [
    PeopleSearchService,
    Person360Service,
    PersonActionsService,
    PeopleUpstreams,
    LimitUsageReader,
    CustomerUnfreezeHandler,
    StaffRoleChangeHandler,
    StaffTotpResetHandler,
    StaffDisableHandler,
    StaffEnableHandler,
  ],
  exports: [Person360Service],
})
export class PeopleModule implements OnModuleInit {
  constructor(
    private readonly registry: ApprovalRegistry,
    private readonly unfreeze: CustomerUnfreezeHandler,
    private readonly roleChange: StaffRoleChangeHandler,
    private readonly totpReset: StaffTotpResetHandler,
    private readonly disable: StaffDisableHandler,
    private readonly enable: StaffEnableHandler,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.unfreeze);
    this.registry.register(this.roleChange);
    this.registry.register(this.totpReset);
    this.registry.register(this.disable);
    this.registry.register(this.enable);
  }
}
