import type { MigrationClass } from '../types';
import { AuthInit1763900000000 } from './1763900000000-auth-init';

/** Migrations of the `auth` schema, in order. Append new ones; never edit a shipped one. */
export const authMigrations: MigrationClass[] = [AuthInit1763900000000];
