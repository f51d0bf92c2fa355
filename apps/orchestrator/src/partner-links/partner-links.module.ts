import { Module } from '@nestjs/common';
import { CustomersModule } from '../customers/customers.module';
import { GatewayModule } from '../gateway/gateway.module';
import { AdminPartnersController } from './admin-partners.controller';
import { MerchantConnectionsController } from './merchant-connections.controller';
import { PartnersClient } from './partners.client';

/**
 * The orchestrator's side of spec 1: the routes a logged-in merchant (connections) or administrator
 * (integrations, keys, secrets) uses, relayed to the partners service's internal API.
 */
@Module({
  imports: [GatewayModule, CustomersModule],
  controllers: [MerchantConnectionsController, AdminPartnersController],
  providers: [PartnersClient],
})
export class PartnerLinksModule {}
