import { Module } from '@nestjs/common';
import { BackofficePartnersModule } from '../backoffice/partners/backoffice-partners.module';
import { IdentitiesModule } from '../identities/identities.module';
import { GatewayModule } from '../gateway/gateway.module';
import { AdminPartnerKeysService } from './admin-partner-keys.service';
import { AdminPartnersController } from './admin-partners.controller';
import { InternalQrPaymentsController } from './internal-qr-payments.controller';
import { LedgerClientModule } from '../ledger-client/ledger-client.module';
import { MerchantConnectionsController } from './merchant-connections.controller';
import { PartnersClient } from '../backoffice/partners/partners.client';

/**
 * The orchestrator's side of the partner API (docs/partners.md "For operators of the platform"): the routes a logged-in merchant (connections) or administrator
 * (integrations, keys, secrets) uses, relayed to the partners service's internal API. API keys go
 * through the maker-checker engine of the back office's partner keys (BackofficePartnersModule).
 */
@Module({
  imports: [GatewayModule, IdentitiesModule, BackofficePartnersModule, LedgerClientModule],
  controllers: [MerchantConnectionsController, AdminPartnersController, InternalQrPaymentsController],
  providers: [PartnersClient, AdminPartnerKeysService],
  exports: [PartnersClient],
})
export class PartnerLinksModule {}
