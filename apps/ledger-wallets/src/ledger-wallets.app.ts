import type { AppDefinition } from '@mm/platform';
import { LedgerWalletsConfig } from './ledger-wallets.config';
import { LedgerWalletsModule } from './ledger-wallets.module';

export const ledgerWalletsApp: AppDefinition<LedgerWalletsConfig> = {
  service: 'ledger-wallets',
  Config: LedgerWalletsConfig,
  module: (config) => LedgerWalletsModule.forRoot(config),
};
