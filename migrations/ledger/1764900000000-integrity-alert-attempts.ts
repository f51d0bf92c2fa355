import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An integrity check's compliance alert is now tried once inside the run and again later by a
 * background job, so one check gets one `balance_integrity_alerts` row per try instead of a single
 * row written after every try was over. The table stays append-only; what changes is its key:
 *
 * - `UNIQUE (check_id)` goes: it allowed one row per check.
 * - `UQ_balance_integrity_alerts_attempt` (check_id, attempts) takes its place: `attempts` is the
 *   number of the try the row records (0: nothing sent, no alert URL configured), so a try is
 *   recorded once even when two instances re-send at the same moment, and the row with the highest
 *   `attempts` is the alert's current outcome.
 *
 * Rows written before (one per check, `attempts` = tries made) read the same way.
 */
export class IntegrityAlertAttempts1764900000000 implements MigrationInterface {
  name = 'IntegrityAlertAttempts1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE ledger.balance_integrity_alerts
        DROP CONSTRAINT balance_integrity_alerts_check_id_key,
        ADD CONSTRAINT "UQ_balance_integrity_alerts_attempt" UNIQUE (check_id, attempts)`);
    await q.query(`COMMENT ON COLUMN ledger.balance_integrity_alerts.attempts IS
      'the number of the try this row records (0: not sent, no alert URL); the highest is the current outcome'`);
  }

  /** Fails once a check has more than one row (the table is append-only: they cannot be merged). */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`COMMENT ON COLUMN ledger.balance_integrity_alerts.attempts IS NULL`);
    await q.query(`
      ALTER TABLE ledger.balance_integrity_alerts
        DROP CONSTRAINT "UQ_balance_integrity_alerts_attempt",
        ADD CONSTRAINT balance_integrity_alerts_check_id_key UNIQUE (check_id)`);
  }
}
