import { DEFAULT_DATABASE_NAME, SERVICES } from '@mm/contracts';
import { DatabaseConfig } from '@mm/platform';

export class WebhookDispatcherConfig extends DatabaseConfig {
  override PORT = SERVICES['webhook-dispatcher'].port;
  override DATABASE_URL = `postgres://${SERVICES['webhook-dispatcher'].role}@127.0.0.1:5432/${DEFAULT_DATABASE_NAME}`;
}
