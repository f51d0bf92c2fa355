import { type DynamicModule, Module } from '@nestjs/common';
import { INTERNAL_CALLER_TABLE, PlatformModule } from '@mm/platform';
import { BackofficeController } from './backoffice/backoffice.controller';
import { BackofficeService } from './backoffice/backoffice.service';
import { ConnectionTransitions } from './connections/connection-transitions.service';
import { ConnectionsController } from './connections/connections.controller';
import { ConnectionsService } from './connections/connections.service';
import { MerchantConnectionsController } from './connections/merchant-connections.controller';
import { EventRelay } from './events/event-relay.service';
import { EventsController } from './events/events.controller';
import { EventsService } from './events/events.service';
import { IntegrationsController } from './integrations/integrations.controller';
import { IntegrationsService } from './integrations/integrations.service';
import { PARTNERS_INTERNAL_CALLERS } from './internal-callers';
import { ApiKeysService } from './keys/api-keys.service';
import { PartnerAuthGuard } from './keys/partner-auth.guard';
import { RateLimiter } from './keys/rate-limiter.service';
import { OrdersController } from './orders/orders.controller';
import { OrdersService } from './orders/orders.service';
import { QrController } from './orders/qr.controller';
import type { PartnersConfig } from './partners.config';
import { LedgerEventsWorker } from './payments/ledger-events.worker';
import { OrderPaymentService } from './payments/order-payment.service';
import { PaymentAnomaliesController } from './payments/payment-anomalies.controller';
import { PaymentAnomaliesService } from './payments/payment-anomalies.service';
import { ExpirySweeper } from './sweeper/expiry-sweeper.service';
import { MerchantStatementClient } from './statements/merchant-statement.client';
import { PaidOrdersController } from './statements/paid-orders.controller';
import { PaidOrdersService } from './statements/paid-orders.service';
import { PartnerStatementsController } from './statements/partner-statements.controller';
import { PartnerStatementsService } from './statements/partner-statements.service';
import { TestHelpersController } from './test-helpers/test-helpers.controller';
import { DispatcherEndpointsClient } from './upstreams/dispatcher-endpoints.client';
import { MerchantDirectoryClient } from './upstreams/merchant-directory.client';
import { QrPaymentsClient } from './upstreams/qr-payments.client';

@Module({})
export class PartnersModule {
  static forRoot(config: PartnersConfig): DynamicModule {
    return {
      module: PartnersModule,
      imports: [PlatformModule.forRoot({ service: 'partners', config, database: { schema: 'partners' }, redis: true })],
      controllers: [
        ConnectionsController,
        OrdersController,
        EventsController,
        TestHelpersController,
        IntegrationsController,
        MerchantConnectionsController,
        QrController,
        PaymentAnomaliesController,
        BackofficeController,
        PartnerStatementsController,
        PaidOrdersController,
      ],
      providers: [
        { provide: INTERNAL_CALLER_TABLE, useValue: PARTNERS_INTERNAL_CALLERS },
        MerchantDirectoryClient,
        QrPaymentsClient,
        DispatcherEndpointsClient,
        ApiKeysService,
        RateLimiter,
        PartnerAuthGuard,
        IntegrationsService,
        EventsService,
        EventRelay,
        ConnectionsService,
        ConnectionTransitions,
        OrdersService,
        OrderPaymentService,
        PaymentAnomaliesService,
        BackofficeService,
        LedgerEventsWorker,
        ExpirySweeper,
        MerchantStatementClient,
        PaidOrdersService,
        PartnerStatementsService,
      ],
    };
  }
}
