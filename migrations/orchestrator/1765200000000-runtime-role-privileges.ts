import type { MigrationInterface, QueryRunner } from 'typeorm';
import { restoreRuntimeOwnership, restrictRuntimeRole } from '../runtime-role';

/**
 * svc_orchestrator stops owning its schema
 * (docs/architecture.md "Storage: one database, one schema and one role per service"; see
 * `../runtime-role.ts`). The versioned configuration, risk decisions and saga journal are
 * append-only, quotes and limit usage are never deleted: the role is not granted what their guard
 * triggers refuse.
 */
export class RuntimeRolePrivileges1765200000000 implements MigrationInterface {
  name = 'RuntimeRolePrivileges1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await restrictRuntimeRole(q, 'orchestrator', {
      appendOnly: ['config_versions', 'risk_decisions', 'saga_events'],
      neverDeleted: ['fee_quotes', 'limit_usage'],
    });
  }

  async down(q: QueryRunner): Promise<void> {
    await restoreRuntimeOwnership(q, 'orchestrator');
  }
}
