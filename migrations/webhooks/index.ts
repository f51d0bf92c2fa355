import type { MigrationClass } from '../types';

/** Migrations of the `webhooks` schema, in order. Append new ones; never edit a shipped one. */
export const webhooksMigrations: MigrationClass[] = [];
