import { DEFAULT_DATABASE_NAME, SERVICES } from '@mm/contracts';
import { DatabaseConfig } from '@mm/platform';

export class LedgerWalletsConfig extends DatabaseConfig {
  override PORT = SERVICES['ledger-wallets'].port;
  override DATABASE_URL = `postgres://${SERVICES['ledger-wallets'].role}@127.0.0.1:5432/${DEFAULT_DATABASE_NAME}`;
}
