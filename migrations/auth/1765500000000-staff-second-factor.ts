import type { MigrationInterface, QueryRunner } from 'typeorm';

const ROLES_BEFORE = `'CUSTOMER', 'MERCHANT', 'AGENT', 'MASTER_AGENT', 'SUPPORT', 'COMPLIANCE', 'ADMIN'`;
const REASONS_BEFORE = `'LOGOUT', 'REFRESH_REUSE', 'PIN_CHANGED', 'PIN_RESET', 'USER_DELETED', 'ACCOUNT_DISABLED', 'ROLE_CHANGED'`;
const PURPOSES_BEFORE = `'LOGIN', 'PIN_RESET', 'INTENT'`;

/**
 * Staff sign-in (docs/auth-limits.md "Staff sign-in"): the AUDITOR role; one TOTP enrolment per
 * user (the secret encrypted with TOTP_ENCRYPTION_KEY, AES-256-GCM, bound to the user id;
 * `last_step` is the time step of the last code accepted, so a code is never accepted twice);
 * sessions remember the client's User-Agent and their last sign-in or refresh, and why an operator
 * ended them. Three new reasons a session ends: the user signed out everywhere, an operator ended
 * the user's sessions, the second factor was reset. One-time codes get the purpose STAFF_ENROLMENT:
 * the SMS code that proves a staff member holds their phone when they enrol an authenticator. The
 * runtime role gets row privileges on the new table from the schema's default privileges
 * (1765200000000), as on every auth table.
 */
export class StaffSecondFactor1765500000000 implements MigrationInterface {
  name = 'StaffSecondFactor1765500000000';

  async up(q: QueryRunner): Promise<void> {
    // Each widened CHECK is added NOT VALID: the ALTER takes ACCESS EXCLUSIVE but scans nothing. The
    // scans (VALIDATE CONSTRAINT, under a lock that lets reads and writes go on) run at the end, in a
    // transaction of their own, so that lock is not held while they read the tables.
    await q.query(`ALTER TABLE auth.users DROP CONSTRAINT IF EXISTS users_roles_check`);
    await q.query(`
      ALTER TABLE auth.users ADD CONSTRAINT users_roles_check CHECK (
        cardinality(roles) > 0 AND roles <@ ARRAY[${ROLES_BEFORE}, 'AUDITOR']::text[]
      ) NOT VALID`);
    await q.query(`ALTER TABLE auth.sessions DROP CONSTRAINT IF EXISTS sessions_revoke_reason_check`);
    await q.query(`
      ALTER TABLE auth.sessions ADD CONSTRAINT sessions_revoke_reason_check CHECK (
        revoke_reason IN (${REASONS_BEFORE}, 'LOGOUT_ALL', 'REVOKED_BY_OPERATOR', 'SECOND_FACTOR_RESET')
      ) NOT VALID`);
    await q.query(`ALTER TABLE auth.otp_codes DROP CONSTRAINT IF EXISTS otp_codes_purpose_check`);
    await q.query(`
      ALTER TABLE auth.otp_codes ADD CONSTRAINT otp_codes_purpose_check CHECK (
        purpose IN (${PURPOSES_BEFORE}, 'STAFF_ENROLMENT')
      ) NOT VALID`);
    await q.query(`
      ALTER TABLE auth.sessions
        ADD COLUMN user_agent   text,
        ADD COLUMN last_used_at timestamptz NOT NULL DEFAULT now(),
        ADD COLUMN revoke_note  text,
        ADD CONSTRAINT sessions_user_agent_check CHECK (char_length(user_agent) <= 300) NOT VALID,
        ADD CONSTRAINT sessions_revoke_note_check CHECK (char_length(revoke_note) <= 500) NOT VALID`);
    await q.query(`CREATE INDEX sessions_user_revoked_idx ON auth.sessions (user_id, revoked_at DESC) WHERE revoked_at IS NOT NULL`);
    await q.query(`
      CREATE TABLE auth.second_factors (
        user_id     uuid PRIMARY KEY REFERENCES auth.users (id) ON DELETE CASCADE,
        method      text NOT NULL DEFAULT 'TOTP' CHECK (method = 'TOTP'),
        secret      bytea NOT NULL CHECK (octet_length(secret) BETWEEN 29 AND 200),
        last_step   bigint NOT NULL CHECK (last_step >= 0),
        enrolled_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The migrations run one transaction each: end this one (its locks go with it), validate in a new one.
    if (q.isTransactionActive) {
      await q.commitTransaction();
      await q.startTransaction();
    }
    await q.query(`ALTER TABLE auth.users VALIDATE CONSTRAINT users_roles_check`);
    await q.query(`ALTER TABLE auth.sessions VALIDATE CONSTRAINT sessions_revoke_reason_check`);
    await q.query(`ALTER TABLE auth.sessions VALIDATE CONSTRAINT sessions_user_agent_check`);
    await q.query(`ALTER TABLE auth.sessions VALIDATE CONSTRAINT sessions_revoke_note_check`);
    await q.query(`ALTER TABLE auth.otp_codes VALIDATE CONSTRAINT otp_codes_purpose_check`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM auth.otp_codes WHERE purpose = 'STAFF_ENROLMENT'`);
    await q.query(`ALTER TABLE auth.otp_codes DROP CONSTRAINT IF EXISTS otp_codes_purpose_check`);
    await q.query(`ALTER TABLE auth.otp_codes ADD CONSTRAINT otp_codes_purpose_check CHECK (purpose IN (${PURPOSES_BEFORE}))`);
    await q.query(`DROP TABLE IF EXISTS auth.second_factors`);
    await q.query(`DROP INDEX IF EXISTS auth.sessions_user_revoked_idx`);
    await q.query(
      `ALTER TABLE auth.sessions DROP COLUMN IF EXISTS user_agent, DROP COLUMN IF EXISTS last_used_at, DROP COLUMN IF EXISTS revoke_note`,
    );
    await q.query(`ALTER TABLE auth.sessions DROP CONSTRAINT IF EXISTS sessions_revoke_reason_check`);
    await q.query(`
      UPDATE auth.sessions SET revoke_reason = 'LOGOUT'
       WHERE revoke_reason IN ('LOGOUT_ALL', 'REVOKED_BY_OPERATOR', 'SECOND_FACTOR_RESET')`);
    await q.query(`ALTER TABLE auth.sessions ADD CONSTRAINT sessions_revoke_reason_check CHECK (revoke_reason IN (${REASONS_BEFORE}))`);
    await q.query(`ALTER TABLE auth.users DROP CONSTRAINT IF EXISTS users_roles_check`);
    await q.query(`
      ALTER TABLE auth.users ADD CONSTRAINT users_roles_check CHECK (
        cardinality(roles) > 0 AND roles <@ ARRAY[${ROLES_BEFORE}]::text[]
      )`);
  }
}
