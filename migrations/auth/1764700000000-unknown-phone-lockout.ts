import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * PIN lockout counters for phones that have no account, so that a login on such a phone goes
 * through the same lock schedule as an account (otherwise the lock itself tells which phones are
 * registered). A row is named by a keyed digest of the phone (AuthSecrets.phoneTag), never by the
 * phone itself, and is forgotten at `forget_at` (a login then counts it as no row); the periodic
 * clean-up of auth (AuthCleanup) deletes forgotten rows, so the table holds little more than the
 * phones that failed within that memory.
 */
export class UnknownPhoneLockout1764700000000 implements MigrationInterface {
  name = 'UnknownPhoneLockout1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE auth.unknown_phone_lockouts (
        phone_tag           text PRIMARY KEY,
        failed_pin_attempts integer NOT NULL CHECK (failed_pin_attempts > 0),
        locked_until        timestamptz,
        hard_locked         boolean NOT NULL DEFAULT false,
        forget_at           timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX unknown_phone_lockouts_forget_idx ON auth.unknown_phone_lockouts (forget_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS auth.unknown_phone_lockouts`);
  }
}
