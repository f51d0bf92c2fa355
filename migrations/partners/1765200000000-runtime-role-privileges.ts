import type { MigrationInterface, QueryRunner } from 'typeorm';
import { restoreRuntimeOwnership, restrictRuntimeRole } from '../runtime-role';

/** svc_partners stops owning its schema: row privileges only (issue 30 item 14; see `../runtime-role.ts`). */
export class RuntimeRolePrivileges1765200000000 implements MigrationInterface {
  name = 'RuntimeRolePrivileges1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await restrictRuntimeRole(q, 'partners');
  }

  async down(q: QueryRunner): Promise<void> {
    await restoreRuntimeOwnership(q, 'partners');
  }
}
