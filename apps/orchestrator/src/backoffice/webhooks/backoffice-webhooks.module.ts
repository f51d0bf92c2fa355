import { Module } from '@nestjs/common';
import { GatewayModule } from '../../gateway/gateway.module';
import { BackofficeWebhooksController } from './backoffice-webhooks.controller';
import { WebhookOperationsClient } from './webhook-operations.client';
import { WebhookOperationsService } from './webhook-operations.service';

/**
 * Webhook operations for staff (`/api/backoffice/webhooks`). Exports WebhookOperationsService, whose
 * `eventsForOrder(orderId)` gives the payment story its webhook deliveries.
 */
@Module({
  imports: [GatewayModule],
  controllers: [BackofficeWebhooksController],
  providers: [WebhookOperationsClient, WebhookOperationsService],
  exports: [WebhookOperationsService, WebhookOperationsClient],
})
export class BackofficeWebhooksModule {}
