import { DEFAULT_DATABASE_NAME, SERVICES } from '@mm/contracts';
import { DatabaseConfig } from '@mm/platform';

export class AuthConfig extends DatabaseConfig {
  override PORT = SERVICES['auth'].port;
  override DATABASE_URL = `postgres://${SERVICES['auth'].role}@127.0.0.1:5432/${DEFAULT_DATABASE_NAME}`;
}
