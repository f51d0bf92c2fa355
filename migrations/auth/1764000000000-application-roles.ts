import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The application roles (docs/roles.md "Roles") on local users (end user = CUSTOMER, merchant,
 * agent, master agent, support operator, compliance/finance officer, administrator), and the two
 * new reasons a session ends: the account was disabled (a frozen customer) or its role changed (new
 * tokens carry the new role).
 */
export class ApplicationRoles1764000000000 implements MigrationInterface {
  name = 'ApplicationRoles1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE auth.users DROP CONSTRAINT IF EXISTS users_roles_check`);
    await q.query(`
      ALTER TABLE auth.users ADD CONSTRAINT users_roles_check CHECK (
        cardinality(roles) > 0
        AND roles <@ ARRAY['CUSTOMER', 'MERCHANT', 'AGENT', 'MASTER_AGENT', 'SUPPORT', 'COMPLIANCE', 'ADMIN']::text[]
      )`);
    await q.query(`ALTER TABLE auth.sessions DROP CONSTRAINT IF EXISTS sessions_revoke_reason_check`);
    await q.query(`
      ALTER TABLE auth.sessions ADD CONSTRAINT sessions_revoke_reason_check CHECK (
        revoke_reason IN ('LOGOUT', 'REFRESH_REUSE', 'PIN_CHANGED', 'PIN_RESET', 'USER_DELETED', 'ACCOUNT_DISABLED', 'ROLE_CHANGED')
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE auth.sessions DROP CONSTRAINT IF EXISTS sessions_revoke_reason_check`);
    await q.query(`
      ALTER TABLE auth.sessions ADD CONSTRAINT sessions_revoke_reason_check CHECK (
        revoke_reason IN ('LOGOUT', 'REFRESH_REUSE', 'PIN_CHANGED', 'PIN_RESET', 'USER_DELETED')
      )`);
    await q.query(`ALTER TABLE auth.users DROP CONSTRAINT IF EXISTS users_roles_check`);
    await q.query(`
      ALTER TABLE auth.users ADD CONSTRAINT users_roles_check CHECK (
        cardinality(roles) > 0 AND roles <@ ARRAY['CUSTOMER', 'MERCHANT', 'AGENT', 'ADMIN']::text[]
      )`);
  }
}
