import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@mm/platform';
import type { WebhookDispatcherConfig } from './webhook-dispatcher.config';

@Module({})
export class WebhookDispatcherModule {
  static forRoot(config: WebhookDispatcherConfig): DynamicModule {
    return {
      module: WebhookDispatcherModule,
      imports: [PlatformModule.forRoot({ service: 'webhook-dispatcher', config, database: { schema: 'webhooks' }, redis: true })],
    };
  }
}
