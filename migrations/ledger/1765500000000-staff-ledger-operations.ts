import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SERVICES } from '@mm/contracts';

const MAX = '9007199254740991';

/**
 * Ledger operations for staff through the orchestrator's maker-checker engine
 * (docs/ledger-corrections.md "Staff through `/api`", "Expiry", "Holds").
 *
 * 1. A correction may EXPIRE: the engine's request it belongs to ran out of time and nobody decided.
 *    Nobody decided, so an expired correction has a decision time and no checker
 *    (`CHK_corrections_decision` is redrawn for it); the journal gets an `expired` step; and an
 *    expired REVERSAL frees its transaction for a new request, like a rejected one
 *    (`UQ_corrections_live_reversal` now counts pending and executed requests only).
 *    `trg_corrections_final` already keeps any status other than PENDING_APPROVAL final.
 *
 * 2. Named holds (`ledger.holds`): an operator's hold on part of an account's available balance,
 *    with an id, so that the very hold placed can be listed and released later. Placing one moves the
 *    amount from available to frozen, releasing it moves it back; each step is also journaled in
 *    `operator_actions` (FREEZE / UNFREEZE, now with `hold_id`). The database keeps a released hold
 *    final and what was placed unchanged (`trg_holds_final`), and never deletes a hold.
 */
export class StaffLedgerOperations1765500000000 implements MigrationInterface {
  name = 'StaffLedgerOperations1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE ledger.corrections DROP CONSTRAINT corrections_status_check`);
    await q.query(`
      ALTER TABLE ledger.corrections ADD CONSTRAINT "CHK_corrections_status"
      CHECK (status IN ('PENDING_APPROVAL', 'EXECUTED', 'REJECTED', 'EXPIRED'))`);
    await q.query(`ALTER TABLE ledger.corrections DROP CONSTRAINT "CHK_corrections_decision"`);
    await q.query(`
      ALTER TABLE ledger.corrections ADD CONSTRAINT "CHK_corrections_decision" CHECK (
        (status = 'PENDING_APPROVAL') = (decided_at IS NULL)
        AND (checker_id IS NULL) = (status IN ('PENDING_APPROVAL', 'EXPIRED')))`);
    await q.query(`DROP INDEX ledger."UQ_corrections_live_reversal"`);
    await q.query(`
      CREATE UNIQUE INDEX "UQ_corrections_live_reversal" ON ledger.corrections (reversed_transaction_id)
      WHERE reversed_transaction_id IS NOT NULL AND status IN ('PENDING_APPROVAL', 'EXECUTED')`);
    await q.query(`ALTER TABLE ledger.correction_events DROP CONSTRAINT correction_events_event_check`);
    await q.query(`
      ALTER TABLE ledger.correction_events ADD CONSTRAINT "CHK_correction_events_event"
      CHECK (event IN ('submitted', 'approved', 'executed', 'rejected', 'expired', 'alert_sent', 'alert_failed'))`);

    await q.query(`
      CREATE TABLE ledger.holds (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        -- the caller's key (the engine's request id): placing again answers the same hold
        idempotency_key text NOT NULL,
        request_hash char(64) NOT NULL,
        account_id uuid NOT NULL REFERENCES ledger.accounts (id),
        amount bigint NOT NULL CHECK (amount > 0 AND amount <= ${MAX}),
        currency char(3) NOT NULL CHECK (currency IN ('XAF', 'XOF')),
        reason text NOT NULL,
        status text NOT NULL CHECK (status IN ('ACTIVE', 'RELEASED')),
        -- the operator whose token placed it, and who asked for it (the maker) when that is someone else
        placed_by text NOT NULL,
        placed_roles text[] NOT NULL,
        requested_by text,
        placed_at timestamptz NOT NULL DEFAULT now(),
        released_by text,
        released_roles text[],
        release_requested_by text,
        release_key text,
        release_reason text,
        released_at timestamptz,
        correlation_id text,
        CONSTRAINT "UQ_holds_idempotency_key" UNIQUE (idempotency_key),
        CONSTRAINT "CHK_holds_release" CHECK (
          (status = 'RELEASED') = (released_at IS NOT NULL)
          AND (released_at IS NULL) = (released_by IS NULL)
          AND (released_at IS NULL) = (release_reason IS NULL)
          AND (released_at IS NULL) = (release_key IS NULL))
      )`);
    await q.query(`CREATE INDEX "IDX_holds_account" ON ledger.holds (account_id, placed_at)`);
    await q.query(`CREATE INDEX "IDX_holds_active" ON ledger.holds (placed_at) WHERE status = 'ACTIVE'`);
    await q.query(`
      CREATE FUNCTION ledger.hold_is_final() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.status <> 'ACTIVE' THEN
          RAISE EXCEPTION 'ledger.holds % is released and final: UPDATE operation forbidden', OLD.id USING ERRCODE = 'restrict_violation';
        END IF;
        IF (to_jsonb(NEW) - ARRAY['status', 'released_by', 'released_roles', 'release_requested_by', 'release_key', 'release_reason', 'released_at'])
           <> (to_jsonb(OLD) - ARRAY['status', 'released_by', 'released_roles', 'release_requested_by', 'release_key', 'release_reason', 'released_at']) THEN
          RAISE EXCEPTION 'ledger.holds %: what was placed never changes', OLD.id USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`CREATE TRIGGER trg_holds_final BEFORE UPDATE ON ledger.holds FOR EACH ROW EXECUTE FUNCTION ledger.hold_is_final()`);
    await q.query(`CREATE TRIGGER trg_holds_no_delete BEFORE DELETE ON ledger.holds FOR EACH ROW EXECUTE FUNCTION ledger.forbid_delete()`);
    await q.query(
      `CREATE TRIGGER trg_holds_no_truncate BEFORE TRUNCATE ON ledger.holds FOR EACH STATEMENT EXECUTE FUNCTION ledger.forbid_truncate()`,
    );
    // Default privileges gave the runtime role every row privilege on the new table: a hold is never deleted.
    await q.query(`REVOKE DELETE ON ledger.holds FROM ${SERVICES['ledger-wallets'].role}`);

    await q.query(`ALTER TABLE ledger.operator_actions ADD COLUMN hold_id uuid REFERENCES ledger.holds (id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE ledger.operator_actions DROP COLUMN IF EXISTS hold_id`);
    await q.query(`DROP TABLE IF EXISTS ledger.holds`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.hold_is_final()`);
    await q.query(`ALTER TABLE ledger.correction_events DROP CONSTRAINT "CHK_correction_events_event"`);
    await q.query(`
      ALTER TABLE ledger.correction_events ADD CONSTRAINT correction_events_event_check
      CHECK (event IN ('submitted', 'approved', 'executed', 'rejected', 'alert_sent', 'alert_failed'))`);
    await q.query(`DROP INDEX ledger."UQ_corrections_live_reversal"`);
    await q.query(`
      CREATE UNIQUE INDEX "UQ_corrections_live_reversal" ON ledger.corrections (reversed_transaction_id)
      WHERE reversed_transaction_id IS NOT NULL AND status <> 'REJECTED'`);
    await q.query(`ALTER TABLE ledger.corrections DROP CONSTRAINT "CHK_corrections_decision"`);
    await q.query(`
      ALTER TABLE ledger.corrections ADD CONSTRAINT "CHK_corrections_decision" CHECK (
        (status = 'PENDING_APPROVAL') = (decided_at IS NULL) AND (decided_at IS NULL) = (checker_id IS NULL))`);
    await q.query(`ALTER TABLE ledger.corrections DROP CONSTRAINT "CHK_corrections_status"`);
    await q.query(`
      ALTER TABLE ledger.corrections ADD CONSTRAINT corrections_status_check
      CHECK (status IN ('PENDING_APPROVAL', 'EXECUTED', 'REJECTED'))`);
  }
}
