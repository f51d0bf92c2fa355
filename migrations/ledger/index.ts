import type { MigrationClass } from '../types';
import { LedgerInit1763800000000 } from './1763800000000-ledger-init';

/** Migrations of the `ledger` schema, in order. Append new ones; never edit a shipped one. */
export const ledgerMigrations: MigrationClass[] = [LedgerInit1763800000000];
