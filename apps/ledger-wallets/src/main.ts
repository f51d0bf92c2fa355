import { runMain, startDefinedApp } from '@mm/platform';
import { ledgerWalletsApp } from './ledger-wallets.app';

runMain(() => startDefinedApp(ledgerWalletsApp));
