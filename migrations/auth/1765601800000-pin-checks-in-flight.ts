import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * PIN checks in flight, kept apart from failures (docs/auth-limits.md "PIN checks in flight").
 * Until now an attempt was counted as a failure when it was reserved, before its PIN was hashed, and
 * the reservation that reached the lock threshold set the lock: five right PINs checked at once
 * locked the account for the length of their hashes, and a sixth got 423 ACCOUNT_LOCKED with a
 * fifteen-minute Retry-After. Now a reservation only counts in `pin_checks_in_flight` (forgotten
 * 60 s after `pin_checks_since`, the latest reservation, should a process die mid-check), a
 * failure is counted and locks when its PIN is found wrong, and the number in flight is bounded by
 * the attempts left before the lock, so no more PINs are tried than before.
 *
 * An unknown phone's counter gets the same two columns, and a row may now hold a reservation and no
 * failure yet, so its `failed_pin_attempts > 0` check becomes `>= 0`. The new columns have constant
 * defaults (no table rewrite). Everything runs in the migration's one transaction, so a failure
 * leaves nothing half done.
 */
export class PinChecksInFlight1765601800000 implements MigrationInterface {
  name = 'PinChecksInFlight1765601800000';

  async up(q: QueryRunner): Promise<void> {
    // Every login reads auth.users: wait at most 5 s for the ALTER's lock (then fail, and run the
    // migration again) rather than queue every login behind a long transaction.
    await q.query(`SET LOCAL lock_timeout = '5s'`);
    await q.query(`
      ALTER TABLE auth.users
        ADD COLUMN IF NOT EXISTS pin_checks_in_flight integer NOT NULL DEFAULT 0,
        ADD COLUMN IF NOT EXISTS pin_checks_since     timestamptz`);
    // The wider check holds for every row the old one admitted. Marking it valid reads the table
    // under the ALTER's lock, which this transaction still holds: a short read, as rows are
    // forgotten a month after their last failure.
    await q.query(`
      ALTER TABLE auth.unknown_phone_lockouts
        ADD COLUMN IF NOT EXISTS pin_checks_in_flight integer NOT NULL DEFAULT 0,
        ADD COLUMN IF NOT EXISTS pin_checks_since     timestamptz,
        DROP CONSTRAINT IF EXISTS unknown_phone_lockouts_failed_pin_attempts_check,
        ADD CONSTRAINT unknown_phone_lockouts_failed_pin_attempts_check CHECK (failed_pin_attempts >= 0) NOT VALID`);
    await q.query(`ALTER TABLE auth.unknown_phone_lockouts VALIDATE CONSTRAINT unknown_phone_lockouts_failed_pin_attempts_check`);
  }

  async down(q: QueryRunner): Promise<void> {
    // A row holding only a reservation has no failure to keep.
    await q.query(`DELETE FROM auth.unknown_phone_lockouts WHERE failed_pin_attempts = 0`);
    await q.query(`
      ALTER TABLE auth.unknown_phone_lockouts
        DROP CONSTRAINT unknown_phone_lockouts_failed_pin_attempts_check,
        ADD CONSTRAINT unknown_phone_lockouts_failed_pin_attempts_check CHECK (failed_pin_attempts > 0),
        DROP COLUMN pin_checks_in_flight,
        DROP COLUMN pin_checks_since`);
    await q.query(`ALTER TABLE auth.users DROP COLUMN pin_checks_in_flight, DROP COLUMN pin_checks_since`);
  }
}
