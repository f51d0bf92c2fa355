import type { MigrationClass } from '../types';

/** Migrations of the `ledger` schema, in order. Append new ones; never edit a shipped one. */
export const ledgerMigrations: MigrationClass[] = [];
