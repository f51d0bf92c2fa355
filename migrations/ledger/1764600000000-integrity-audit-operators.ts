import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who ran an audit or an integrity check, and what became of the check's alert.
 *
 * - `balance_integrity_checks` names who asked for each run (`requested_by`: the operator's id from
 *   their access token, or `scheduler` for the nightly run), through which service and in which
 *   request, and keeps the true number of accounts with a gap (`account_gap_count`) next to the
 *   bounded list in `gaps`. Rows written before this migration are attributed to `unknown`.
 * - `account_audits` journals every audit on demand: operator, roles, token id, caller, request.
 * - `balance_integrity_alerts` records the outcome of each check's compliance alert (attempts,
 *   delivered or not, last error).
 * - All three are append-only, with the same triggers as the other journals (`ledgers`,
 *   `correction_events`): the database refuses UPDATE, DELETE and TRUNCATE. The nightly job only
 *   ever inserts, so it is unaffected.
 */
export class IntegrityAuditOperators1764600000000 implements MigrationInterface {
  name = 'IntegrityAuditOperators1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE ledger.balance_integrity_checks
        ADD COLUMN requested_by text,
        ADD COLUMN requested_by_roles text[] NOT NULL DEFAULT '{}',
        ADD COLUMN caller text,
        ADD COLUMN request_id text,
        ADD COLUMN account_gap_count int`);
    // Backfill while the table can still be updated: earlier runs listed every gap they counted
    // (up to 1000), and nobody recorded who asked.
    await q.query(`
      UPDATE ledger.balance_integrity_checks
      SET requested_by = CASE trigger WHEN 'SCHEDULED' THEN 'scheduler' ELSE 'unknown' END,
          account_gap_count = jsonb_array_length(gaps)`);
    await q.query(`
      ALTER TABLE ledger.balance_integrity_checks
        ALTER COLUMN requested_by SET NOT NULL,
        ALTER COLUMN account_gap_count SET NOT NULL,
        ADD CONSTRAINT "CHK_balance_integrity_checks_scheduler"
          CHECK ((trigger = 'SCHEDULED') = (requested_by = 'scheduler')),
        ADD CONSTRAINT "CHK_balance_integrity_checks_account_gaps"
          CHECK (account_gap_count >= 0 AND account_gap_count <= gap_count)`);

    await q.query(`
      CREATE TABLE ledger.account_audits (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES ledger.accounts (id),
        operator_id text NOT NULL,
        operator_roles text[] NOT NULL DEFAULT '{}',
        token_id text NOT NULL,
        caller text,
        request_id text,
        correlation_id text,
        status text NOT NULL CHECK (status IN ('OK', 'WARNING', 'CRITICAL')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX "IDX_account_audits_account" ON ledger.account_audits (account_id, created_at)`);

    await q.query(`
      CREATE TABLE ledger.balance_integrity_alerts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        check_id uuid NOT NULL UNIQUE REFERENCES ledger.balance_integrity_checks (id),
        attempts int NOT NULL CHECK (attempts >= 0),
        delivered boolean NOT NULL,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);

    for (const table of ['balance_integrity_checks', 'account_audits', 'balance_integrity_alerts']) {
      await q.query(`
        CREATE TRIGGER trg_${table}_append_only BEFORE UPDATE OR DELETE ON ledger.${table}
        FOR EACH ROW EXECUTE FUNCTION ledger.forbid_row_change()`);
      await q.query(`
        CREATE TRIGGER trg_${table}_no_truncate BEFORE TRUNCATE ON ledger.${table}
        FOR EACH STATEMENT EXECUTE FUNCTION ledger.forbid_truncate()`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['balance_integrity_checks', 'account_audits', 'balance_integrity_alerts']) {
      await q.query(`DROP TRIGGER IF EXISTS trg_${table}_no_truncate ON ledger.${table}`);
      await q.query(`DROP TRIGGER IF EXISTS trg_${table}_append_only ON ledger.${table}`);
    }
    await q.query(`DROP TABLE IF EXISTS ledger.balance_integrity_alerts`);
    await q.query(`DROP TABLE IF EXISTS ledger.account_audits`);
    await q.query(`
      ALTER TABLE ledger.balance_integrity_checks
        DROP CONSTRAINT IF EXISTS "CHK_balance_integrity_checks_account_gaps",
        DROP CONSTRAINT IF EXISTS "CHK_balance_integrity_checks_scheduler",
        DROP COLUMN IF EXISTS account_gap_count,
        DROP COLUMN IF EXISTS request_id,
        DROP COLUMN IF EXISTS caller,
        DROP COLUMN IF EXISTS requested_by_roles,
        DROP COLUMN IF EXISTS requested_by`);
  }
}
