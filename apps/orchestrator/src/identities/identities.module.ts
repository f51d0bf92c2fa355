import { Module } from '@nestjs/common';
import { ApprovalsModule } from '../approvals/approvals.module';
import { AdminUsersService } from './admin/admin-users.service';
import { AdminController } from './admin/admin.controller';
import { AgentsController } from './agents/agents.controller';
import { AgentsService } from './agents/agents.service';
import { OrganisationsService } from './agents/organisations.service';
import { AuthIdentityClient, LedgerWalletsClient } from '../clients/identity-clients';
import { DirectoryController } from './directory/directory.controller';
import { MerchantsController } from './merchants/merchants.controller';
import { MerchantsService } from './merchants/merchants.service';
import { ProfileController } from './profile/profile.controller';
import { StaffService } from './staff/staff.service';
import { CustomersService } from './customers/customers.service';
import { WalletBalances } from './customers/wallet-balances.service';

/**
 * Identities, the platform's customer service kept as one module with a narrow interface
 * (docs/architecture.md "Processes and ports"): customers and profiles (customers/, profile/),
 * merchants, agents, staff; the internal merchant directory (directory/); the users' own routes and
 * the staff routes (admin/). Other modules use only the exported services.
 */
@Module({
  imports: [ApprovalsModule],
  controllers: [DirectoryController, ProfileController, MerchantsController, AgentsController, AdminController],
  providers: [
    CustomersService,
    MerchantsService,
    AgentsService,
    StaffService,
    WalletBalances,
    AdminUsersService,
    OrganisationsService,
    AuthIdentityClient,
    LedgerWalletsClient,
  ],
  exports: [CustomersService, MerchantsService, AgentsService, StaffService, AdminUsersService, AuthIdentityClient, LedgerWalletsClient],
})
export class IdentitiesModule {}
