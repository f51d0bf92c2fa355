import { DEFAULT_DATABASE_NAME, SERVICES } from '@mm/contracts';
import { DatabaseConfig } from '@mm/platform';

export class PartnersConfig extends DatabaseConfig {
  override PORT = SERVICES['partners'].port;
  override DATABASE_URL = `postgres://${SERVICES['partners'].role}@127.0.0.1:5432/${DEFAULT_DATABASE_NAME}`;
}
