import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@mm/platform';
import type { LedgerWalletsConfig } from './ledger-wallets.config';

@Module({})
export class LedgerWalletsModule {
  static forRoot(config: LedgerWalletsConfig): DynamicModule {
    return {
      module: LedgerWalletsModule,
      imports: [PlatformModule.forRoot({ service: 'ledger-wallets', config, database: { schema: 'ledger' }, redis: true })],
    };
  }
}
