import type { MigrationClass } from '../types';

/** Migrations of the `orchestrator` schema, in order. Append new ones; never edit a shipped one. */
export const orchestratorMigrations: MigrationClass[] = [];
