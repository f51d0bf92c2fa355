import type { MigrationInterface, QueryRunner } from 'typeorm';

const MAX = '9007199254740991';

/**
 * Operator corrections under maker-checker (docs/ledger-corrections.md "What an approval writes"):
 * a balance correction is a request (`corrections`) a maker submits and a different checker
 * decides; only an approval writes the signed adjustment transaction. Every step is journaled
 * (`correction_events`), and so are the holds operators place directly
 * (`operator_actions`: freeze / unfreeze).
 *
 * The database keeps the rules the service applies: maker and checker differ, a decided correction
 * never changes again (only the time its compliance alert was delivered is filled in later), an
 * executed one points at its transaction, and the journals are append-only.
 */
export class Corrections1764000200000 implements MigrationInterface {
  name = 'Corrections1764000200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE ledger.corrections (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        -- the maker's key: a repeated submission returns the same correction
        idempotency_key text NOT NULL,
        request_hash char(64) NOT NULL,
        account_id uuid NOT NULL REFERENCES ledger.accounts (id),
        direction text NOT NULL CHECK (direction IN ('CREDIT', 'DEBIT')),
        amount bigint NOT NULL CHECK (amount > 0 AND amount <= ${MAX}),
        currency char(3) NOT NULL CHECK (currency IN ('XAF', 'XOF')),
        reason text NOT NULL,
        status text NOT NULL CHECK (status IN ('PENDING_APPROVAL', 'EXECUTED', 'REJECTED')),
        requires_compliance boolean NOT NULL,
        maker_id text NOT NULL,
        maker_roles text[] NOT NULL,
        submitted_at timestamptz NOT NULL DEFAULT now(),
        checker_id text,
        checker_roles text[],
        decided_at timestamptz,
        decision_reason text,
        transaction_id uuid REFERENCES ledger.transactions (id),
        alerted_at timestamptz,
        correlation_id text,
        CONSTRAINT "UQ_corrections_idempotency_key" UNIQUE (idempotency_key),
        CONSTRAINT "CHK_corrections_distinct_checker" CHECK (checker_id IS NULL OR checker_id <> maker_id),
        CONSTRAINT "CHK_corrections_decision" CHECK (
          (status = 'PENDING_APPROVAL') = (decided_at IS NULL) AND (decided_at IS NULL) = (checker_id IS NULL)),
        CONSTRAINT "CHK_corrections_executed" CHECK ((status = 'EXECUTED') = (transaction_id IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX "IDX_corrections_pending" ON ledger.corrections (submitted_at) WHERE status = 'PENDING_APPROVAL'`);
    await q.query(
      `CREATE INDEX "IDX_corrections_unalerted" ON ledger.corrections (decided_at) WHERE status = 'EXECUTED' AND alerted_at IS NULL`,
    );
    await q.query(`CREATE INDEX "IDX_corrections_account" ON ledger.corrections (account_id)`);

    // A decision is final: once decided, only alerted_at may be filled in (once).
    await q.query(`
      CREATE FUNCTION ledger.correction_is_final() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.status <> 'PENDING_APPROVAL' AND (
             (to_jsonb(NEW) - 'alerted_at') <> (to_jsonb(OLD) - 'alerted_at') OR OLD.alerted_at IS NOT NULL) THEN
          RAISE EXCEPTION 'ledger.corrections % is % and final: UPDATE operation forbidden', OLD.id, OLD.status
            USING ERRCODE = 'restrict_violation';
        END IF;
        IF (to_jsonb(NEW) - ARRAY['status', 'checker_id', 'checker_roles', 'decided_at', 'decision_reason', 'transaction_id', 'alerted_at'])
           <> (to_jsonb(OLD) - ARRAY['status', 'checker_id', 'checker_roles', 'decided_at', 'decision_reason', 'transaction_id', 'alerted_at']) THEN
          RAISE EXCEPTION 'ledger.corrections %: what the maker submitted never changes', OLD.id USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER trg_corrections_final BEFORE UPDATE ON ledger.corrections
      FOR EACH ROW EXECUTE FUNCTION ledger.correction_is_final()`);
    await q.query(`
      CREATE TRIGGER trg_corrections_no_delete BEFORE DELETE ON ledger.corrections
      FOR EACH ROW EXECUTE FUNCTION ledger.forbid_delete()`);

    await q.query(`
      CREATE TABLE ledger.correction_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        -- the steps of one transaction share created_at: their order is the insertion order
        seq bigint GENERATED ALWAYS AS IDENTITY,
        correction_id uuid NOT NULL REFERENCES ledger.corrections (id),
        event text NOT NULL CHECK (event IN ('submitted', 'approved', 'executed', 'rejected', 'alert_sent', 'alert_failed')),
        actor_id text NOT NULL,
        actor_roles text[] NOT NULL DEFAULT '{}',
        reason text,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX "IDX_correction_events_correction" ON ledger.correction_events (correction_id, seq)`);

    await q.query(`
      CREATE TABLE ledger.operator_actions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES ledger.accounts (id),
        action text NOT NULL CHECK (action IN ('FREEZE', 'UNFREEZE', 'TEST_FUNDING_ADD', 'TEST_FUNDING_SUBTRACT')),
        amount bigint NOT NULL CHECK (amount > 0 AND amount <= ${MAX}),
        reason text NOT NULL,
        operator_id text NOT NULL,
        operator_roles text[] NOT NULL DEFAULT '{}',
        transaction_id uuid REFERENCES ledger.transactions (id),
        correlation_id text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX "IDX_operator_actions_account" ON ledger.operator_actions (account_id, created_at)`);

    for (const table of ['correction_events', 'operator_actions']) {
      await q.query(`
        CREATE TRIGGER trg_${table}_append_only BEFORE UPDATE OR DELETE ON ledger.${table}
        FOR EACH ROW EXECUTE FUNCTION ledger.forbid_row_change()`);
      await q.query(`
        CREATE TRIGGER trg_${table}_no_truncate BEFORE TRUNCATE ON ledger.${table}
        FOR EACH STATEMENT EXECUTE FUNCTION ledger.forbid_truncate()`);
    }
    await q.query(`
      CREATE TRIGGER trg_corrections_no_truncate BEFORE TRUNCATE ON ledger.corrections
      FOR EACH STATEMENT EXECUTE FUNCTION ledger.forbid_truncate()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS ledger.operator_actions`);
    await q.query(`DROP TABLE IF EXISTS ledger.correction_events`);
    await q.query(`DROP TABLE IF EXISTS ledger.corrections`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.correction_is_final()`);
  }
}
