import type { MigrationClass } from '../types';

/** Migrations of the `auth` schema, in order. Append new ones; never edit a shipped one. */
export const authMigrations: MigrationClass[] = [];
