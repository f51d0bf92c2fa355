import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SERVICES } from '@mm/contracts';

const MAX = '9007199254740991';
const SIGNED_MONEY = (column: string) => `CHECK (${column} BETWEEN -${MAX} AND ${MAX})`;

/**
 * Float reconciliation against the trust bank account (docs/reconciliation.md).
 *
 * - `bank_statements` and `bank_statement_lines`: each statement imported, as the bank sent it
 *   (its own id, the content's SHA-256, balances, entries) and who imported it. The same statement
 *   twice (same account and bank id, or the same bytes) is refused by the unique constraints; a
 *   statement that does not follow the last one of its account is refused by `trg_bank_statements_order`.
 * - `reconciliation_runs`: one comparison of a statement with the ledger (matches, unmatched items
 *   on both sides, the closing balance against the e-money in circulation), with who ran it.
 * - `reconciliation_alerts`: each difference a run found, with its evidence.
 * - `reconciliation_alert_decisions`: the life of an alert, one row per step: ACKNOWLEDGED, then
 *   CORRECTED (naming an executed four-eyes correction) or ACCEPTED (with a note). The database
 *   keeps the order (a resolution needs an acknowledgement, each step happens once) and the
 *   four eyes of the correction named.
 *
 * Every table is append-only (trigger, and no UPDATE or DELETE for the runtime role): an alert's
 * state is the last of its decisions, never a column rewritten.
 */
export class FloatReconciliation1765600100000 implements MigrationInterface {
  name = 'FloatReconciliation1765600100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE ledger.bank_statements (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account text NOT NULL CHECK (account ~ '^[A-Z0-9]{5,34}$'),
        currency char(3) NOT NULL CHECK (currency IN ('XAF', 'XOF')),
        statement_ref text NOT NULL CHECK (length(statement_ref) BETWEEN 1 AND 140),
        format text NOT NULL CHECK (format IN ('CAMT053', 'CSV')),
        content_hash char(64) NOT NULL,
        opening_balance bigint NOT NULL ${SIGNED_MONEY('opening_balance')},
        opening_date date NOT NULL,
        closing_balance bigint NOT NULL ${SIGNED_MONEY('closing_balance')},
        closing_date date NOT NULL,
        line_count int NOT NULL CHECK (line_count >= 0),
        imported_by text NOT NULL,
        imported_roles text[] NOT NULL,
        caller text,
        request_id text,
        correlation_id text,
        imported_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "UQ_bank_statements_ref" UNIQUE (account, statement_ref),
        CONSTRAINT "UQ_bank_statements_content" UNIQUE (content_hash),
        CONSTRAINT "CHK_bank_statements_dates" CHECK (closing_date >= opening_date)
      )`);
    await q.query(`CREATE INDEX "IDX_bank_statements_account" ON ledger.bank_statements (account, closing_date DESC)`);
    // A statement follows the last one of its account: it opens with that one's closing balance and
    // is dated after it. The service checks first (under a lock on the account) and answers
    // BANK_STATEMENT_OUT_OF_ORDER; this is the last line of defence against any other writer.
    await q.query(`
      CREATE FUNCTION ledger.bank_statement_follows() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE last ledger.bank_statements;
      BEGIN
        SELECT * INTO last FROM ledger.bank_statements WHERE account = NEW.account ORDER BY closing_date DESC, imported_at DESC LIMIT 1;
        IF FOUND AND (NEW.opening_balance <> last.closing_balance OR NEW.opening_date < last.closing_date
                      OR NEW.closing_date <= last.closing_date) THEN
          RAISE EXCEPTION 'bank statement % of account % does not follow statement %', NEW.statement_ref, NEW.account, last.statement_ref
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_bank_statements_order';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER trg_bank_statements_order BEFORE INSERT ON ledger.bank_statements
      FOR EACH ROW EXECUTE FUNCTION ledger.bank_statement_follows()`);

    await q.query(`
      CREATE TABLE ledger.bank_statement_lines (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        statement_id uuid NOT NULL REFERENCES ledger.bank_statements (id),
        line_no int NOT NULL CHECK (line_no > 0),
        direction text NOT NULL CHECK (direction IN ('CREDIT', 'DEBIT')),
        amount bigint NOT NULL CHECK (amount > 0 AND amount <= ${MAX}),
        booking_date date NOT NULL,
        value_date date,
        reference text,
        remittance text,
        CONSTRAINT "UQ_bank_statement_lines" UNIQUE (statement_id, line_no)
      )`);

    await q.query(`
      CREATE TABLE ledger.reconciliation_runs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        statement_id uuid NOT NULL REFERENCES ledger.bank_statements (id),
        currency char(3) NOT NULL CHECK (currency IN ('XAF', 'XOF')),
        business_date date NOT NULL,
        bank_closing bigint NOT NULL ${SIGNED_MONEY('bank_closing')},
        circulation bigint NOT NULL ${SIGNED_MONEY('circulation')},
        difference bigint NOT NULL ${SIGNED_MONEY('difference')},
        status text NOT NULL CHECK (status IN ('BALANCED', 'DIFFERENCES')),
        matched_count int NOT NULL,
        unmatched_bank_count int NOT NULL,
        unmatched_ledger_count int NOT NULL,
        tolerance_days int NOT NULL,
        -- the ledger transactions a bank line explained: a later statement's run does not match them again
        matched_transaction_ids uuid[] NOT NULL,
        result jsonb NOT NULL,
        run_by text NOT NULL,
        run_roles text[] NOT NULL,
        caller text,
        request_id text,
        correlation_id text,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "CHK_reconciliation_runs_difference" CHECK (difference = bank_closing - circulation),
        CONSTRAINT "CHK_reconciliation_runs_status" CHECK (
          (status = 'BALANCED') = (difference = 0 AND unmatched_bank_count = 0 AND unmatched_ledger_count = 0))
      )`);
    await q.query(`CREATE INDEX "IDX_reconciliation_runs_statement" ON ledger.reconciliation_runs (statement_id, created_at)`);
    await q.query(`CREATE INDEX "IDX_reconciliation_runs_created" ON ledger.reconciliation_runs (created_at DESC)`);

    await q.query(`
      CREATE TABLE ledger.reconciliation_alerts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        run_id uuid NOT NULL REFERENCES ledger.reconciliation_runs (id),
        kind text NOT NULL CHECK (kind IN ('BALANCE_GAP', 'UNMATCHED_BANK_LINE', 'UNMATCHED_LEDGER_MOVEMENT')),
        currency char(3) NOT NULL CHECK (currency IN ('XAF', 'XOF')),
        amount bigint NOT NULL ${SIGNED_MONEY('amount')},
        evidence jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX "IDX_reconciliation_alerts_run" ON ledger.reconciliation_alerts (run_id)`);
    await q.query(`CREATE INDEX "IDX_reconciliation_alerts_created" ON ledger.reconciliation_alerts (created_at DESC, id)`);

    await q.query(`
      CREATE TABLE ledger.reconciliation_alert_decisions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigint GENERATED ALWAYS AS IDENTITY,
        alert_id uuid NOT NULL REFERENCES ledger.reconciliation_alerts (id),
        decision text NOT NULL CHECK (decision IN ('ACKNOWLEDGED', 'CORRECTED', 'ACCEPTED')),
        -- 1: acknowledged, 2: resolved (either way): each happens once per alert
        stage smallint GENERATED ALWAYS AS (CASE WHEN decision = 'ACKNOWLEDGED' THEN 1 ELSE 2 END) STORED,
        correction_id uuid REFERENCES ledger.corrections (id),
        note text,
        decided_by text NOT NULL,
        decided_roles text[] NOT NULL,
        caller text,
        request_id text,
        correlation_id text,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "UQ_reconciliation_alert_decisions_stage" UNIQUE (alert_id, stage),
        CONSTRAINT "CHK_reconciliation_alert_decisions_correction" CHECK ((decision = 'CORRECTED') = (correction_id IS NOT NULL)),
        CONSTRAINT "CHK_reconciliation_alert_decisions_note" CHECK (decision <> 'ACCEPTED' OR length(btrim(note)) > 0)
      )`);
    await q.query(`
      CREATE UNIQUE INDEX "UQ_reconciliation_alert_decisions_correction" ON ledger.reconciliation_alert_decisions (correction_id)
      WHERE correction_id IS NOT NULL`);
    // A resolution follows an acknowledgement, and a correction named resolves only when it went
    // through four eyes: executed, and decided by someone other than its maker.
    await q.query(`
      CREATE FUNCTION ledger.reconciliation_decision_allowed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.stage = 2 AND NOT EXISTS (
             SELECT 1 FROM ledger.reconciliation_alert_decisions WHERE alert_id = NEW.alert_id AND stage = 1) THEN
          RAISE EXCEPTION 'reconciliation alert % is resolved before it is acknowledged', NEW.alert_id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alert_decisions_order';
        END IF;
        IF NEW.correction_id IS NOT NULL AND NOT EXISTS (
             SELECT 1 FROM ledger.corrections c WHERE c.id = NEW.correction_id AND c.status = 'EXECUTED'
                AND c.checker_id IS NOT NULL AND c.checker_id <> c.maker_id) THEN
          RAISE EXCEPTION 'correction % is not an executed four-eyes correction', NEW.correction_id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alert_decisions_four_eyes';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER trg_reconciliation_alert_decisions_allowed BEFORE INSERT ON ledger.reconciliation_alert_decisions
      FOR EACH ROW EXECUTE FUNCTION ledger.reconciliation_decision_allowed()`);

    for (const table of TABLES) {
      await q.query(`
        CREATE TRIGGER trg_${table}_append_only BEFORE UPDATE OR DELETE ON ledger.${table}
        FOR EACH ROW EXECUTE FUNCTION ledger.forbid_row_change()`);
      await q.query(`
        CREATE TRIGGER trg_${table}_no_truncate BEFORE TRUNCATE ON ledger.${table}
        FOR EACH STATEMENT EXECUTE FUNCTION ledger.forbid_truncate()`);
      // The schema's default privileges gave the runtime role every row privilege: it reads and appends only.
      await q.query(`REVOKE UPDATE, DELETE, TRUNCATE ON ledger.${table} FROM ${SERVICES['ledger-wallets'].role}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [...TABLES].reverse()) await q.query(`DROP TABLE IF EXISTS ledger.${table}`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.reconciliation_decision_allowed()`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.bank_statement_follows()`);
  }
}

const TABLES = [
  'bank_statements',
  'bank_statement_lines',
  'reconciliation_runs',
  'reconciliation_alerts',
  'reconciliation_alert_decisions',
];
