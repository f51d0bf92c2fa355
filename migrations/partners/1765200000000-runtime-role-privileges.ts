import type { MigrationInterface, QueryRunner } from 'typeorm';
import { restoreRuntimeOwnership, restrictRuntimeRole } from '../runtime-role';

/**
 * svc_partners stops owning its schema: row privileges only
 * (docs/architecture.md "Storage: one database, one schema and one role per service"; see
 * `../runtime-role.ts`).
 */
export class RuntimeRolePrivileges1765200000000 implements MigrationInterface {
  name = 'RuntimeRolePrivileges1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await restrictRuntimeRole(q, 'partners');
  }

  async down(q: QueryRunner): Promise<void> {
    await restoreRuntimeOwnership(q, 'partners');
  }
}
