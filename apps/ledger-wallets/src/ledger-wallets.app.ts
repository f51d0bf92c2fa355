import type { AppDefinition } from '@mm/platform';
import { LedgerWalletsConfig } from './ledger-wallets.config';
import { LedgerWalletsModule } from './ledger-wallets.module';

/** Every route is under `/v1` (internal ones under `/v1/internal`); `/health` and `/metrics` stay at the root. */
export const ledgerWalletsApp: AppDefinition<LedgerWalletsConfig> = {
  service: 'ledger-wallets',
  Config: LedgerWalletsConfig,
  module: (config) => LedgerWalletsModule.forRoot(config),
  options: () => ({ globalPrefix: 'v1' }),
};
