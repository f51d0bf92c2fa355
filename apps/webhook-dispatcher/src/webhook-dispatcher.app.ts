import type { AppDefinition } from '@mm/platform';
import { WebhookDispatcherConfig } from './webhook-dispatcher.config';
import { WebhookDispatcherModule } from './webhook-dispatcher.module';

export const webhookDispatcherApp: AppDefinition<WebhookDispatcherConfig> = {
  service: 'webhook-dispatcher',
  Config: WebhookDispatcherConfig,
  module: (config) => WebhookDispatcherModule.forRoot(config),
};
