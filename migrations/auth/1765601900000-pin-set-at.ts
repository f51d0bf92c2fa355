import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When the account's PIN was last set by a reset or a change (`pin_set_at`, by the database's
 * clock, written in the transaction that stores the new PIN and ends the account's sessions). A PIN
 * check reserved before it may have read the replaced PIN: a session it would open is refused, and so
 * is a change it would make (docs/auth-limits.md "A PIN replaced during a check"). NULL: never
 * replaced since the account was made. A nullable column without a default: no table rewrite.
 */
export class PinSetAt1765601900000 implements MigrationInterface {
  name = 'PinSetAt1765601900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`SET LOCAL lock_timeout = '5s'`);
    await q.query(`ALTER TABLE auth.users ADD COLUMN IF NOT EXISTS pin_set_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE auth.users DROP COLUMN IF EXISTS pin_set_at`);
  }
}
