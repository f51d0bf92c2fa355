import type { MigrationClass } from '../types';

/** Migrations of the `partners` schema, in order. Append new ones; never edit a shipped one. */
export const partnersMigrations: MigrationClass[] = [];
