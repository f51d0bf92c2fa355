import { type DynamicModule, Module } from '@nestjs/common';
import { INTERNAL_CALLER_TABLE, PlatformModule } from '@mm/platform';
import { DedupStore } from './delivery/dedup-store';
import { DeliveryService } from './delivery/delivery.service';
import { DeliveryWorker } from './delivery/delivery.worker';
import { PendingSweep } from './delivery/pending-sweep';
import { WebhookMetrics } from './delivery/webhook-metrics';
import { WebhookQueue } from './delivery/webhook-queue';
import { WebhookSender } from './delivery/webhook-sender';
import { EndpointsController } from './endpoints/endpoints.controller';
import { EndpointsService } from './endpoints/endpoints.service';
import { HOST_RESOLVER, type HostResolver, systemResolver } from './endpoints/host-resolver';
import { WebhookTargetPolicy } from './endpoints/webhook-target.policy';
import { EventsController } from './events/events.controller';
import { IdempotentResendService } from './events/idempotent-resend.service';
import { EventSearchRepository } from './operations/event-search.repository';
import { OperationsController } from './operations/operations.controller';
import { DISPATCHER_INTERNAL_CALLERS } from './internal-callers';
import { ReplayService } from './events/replay.service';
import { WebhookEventsRepository } from './events/webhook-events.repository';
import { secretCipherProvider } from './secrets/secret-cipher.provider';
import type { WebhookDispatcherConfig } from './webhook-dispatcher.config';

/** What a test may swap: the DNS resolver (a stub answering what a rebinding attacker would). */
export interface WebhookDispatcherOverrides {
  resolver?: HostResolver;
}

@Module({})
export class WebhookDispatcherModule {
  static forRoot(config: WebhookDispatcherConfig, overrides: WebhookDispatcherOverrides = {}): DynamicModule {
    return {
      module: WebhookDispatcherModule,
      imports: [PlatformModule.forRoot({ service: 'webhook-dispatcher', config, database: { schema: 'webhooks' }, redis: true })],
      controllers: [EndpointsController, EventsController, OperationsController],
      providers: [
        { provide: INTERNAL_CALLER_TABLE, useValue: DISPATCHER_INTERNAL_CALLERS },
        secretCipherProvider,
        { provide: WebhookSender, useFactory: () => new WebhookSender() },
        { provide: HOST_RESOLVER, useValue: overrides.resolver ?? systemResolver },
        WebhookTargetPolicy,
        WebhookMetrics,
        DedupStore,
        EndpointsService,
        WebhookEventsRepository,
        WebhookQueue,
        ReplayService,
        EventSearchRepository,
        IdempotentResendService,
        DeliveryService,
        DeliveryWorker,
        PendingSweep,
      ],
    };
  }
}
