import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A correction resolves a reconciliation alert only when it is the fix of that difference
 * (docs/reconciliation.md, "Resolving by a correction"). Until now any executed four-eyes
 * correction in the alert's currency resolved any alert: last month's 500 F correction could close
 * a 125,000 F shortfall. `reconciliation_decision_allowed()` now also requires, for a CORRECTED
 * decision:
 *
 * - the correction was submitted after the alert was raised (`submitted_at >= alert.created_at`);
 * - its effect on the trust account, read from its ledger transaction's entries on the currency's
 *   `suspense` account (suspense debited: e-money issued, the bank should receive as much), is
 *   exactly the one the alert calls for: the same direction and amount as an unmatched bank line,
 *   the opposite of an unmatched ledger movement (it undoes it), and for a balance gap
 *   (bank − circulation) an issuance of a positive gap or a redemption of a negative one.
 *
 * Raised as `CHK_reconciliation_alert_decisions_correction_time` and
 * `CHK_reconciliation_alert_decisions_correction_fit`, whoever writes the row. Decisions already
 * recorded are history and are not re-checked.
 *
 * An accepted balance gap carries over: a run may see again (`reconciliation_alert_sightings`) an
 * ACCEPTED `BALANCE_GAP` alert of an earlier statement of the same trust account, not only an
 * alert of its own statement, so the same accepted gap is not alerted afresh each day
 * (docs/reconciliation.md, "Running a statement again").
 *
 * `bank_statements.utc_offset`: the offset of the days the trust account's bank books in, from
 * LEDGER_TRUST_ACCOUNTS at import (West Africa Time, +01:00, for the statements already imported and
 * unless configured; a UEMOA bank in Senegal books in +00:00). A run reads the statement's days,
 * its cutoff and its movements' days at that offset, so a later change of configuration does not
 * change how an imported statement is read. A constant default adds the column without rewriting
 * the append-only table; the runtime role's INSERT already covers the new column.
 */
export class ReconciliationCorrectionFit1765600800000 implements MigrationInterface {
  name = 'ReconciliationCorrectionFit1765600800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE ledger.bank_statements ADD COLUMN utc_offset text NOT NULL DEFAULT '+01:00'
        CONSTRAINT "CHK_bank_statements_utc_offset" CHECK (utc_offset ~ '^[+-](0[0-9]|1[0-4]):[0-5][0-9]$')`);
    await q.query(`
      CREATE OR REPLACE FUNCTION ledger.reconciliation_decision_allowed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE alert ledger.reconciliation_alerts; fix ledger.corrections; expected bigint; effect bigint;
      BEGIN
        IF NEW.stage = 2 AND NOT EXISTS (
             SELECT 1 FROM ledger.reconciliation_alert_decisions WHERE alert_id = NEW.alert_id AND stage = 1) THEN
          RAISE EXCEPTION 'reconciliation alert % is resolved before it is acknowledged', NEW.alert_id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alert_decisions_order';
        END IF;
        IF NEW.correction_id IS NULL THEN
          RETURN NEW;
        END IF;
        SELECT * INTO fix FROM ledger.corrections c WHERE c.id = NEW.correction_id;
        IF NOT FOUND OR fix.status <> 'EXECUTED' OR fix.checker_id IS NULL OR fix.checker_id = fix.maker_id THEN
          RAISE EXCEPTION 'correction % is not an executed four-eyes correction', NEW.correction_id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alert_decisions_four_eyes';
        END IF;
        SELECT * INTO alert FROM ledger.reconciliation_alerts a WHERE a.id = NEW.alert_id;
        IF fix.submitted_at < alert.created_at THEN
          RAISE EXCEPTION 'correction % was submitted before alert % was raised', NEW.correction_id, NEW.alert_id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alert_decisions_correction_time';
        END IF;
        -- signed as the bank sees it: positive is money the trust account should receive
        expected := CASE alert.kind
          WHEN 'BALANCE_GAP' THEN alert.amount
          WHEN 'UNMATCHED_BANK_LINE' THEN CASE alert.evidence -> 'line' ->> 'direction' WHEN 'CREDIT' THEN alert.amount ELSE -alert.amount END
          ELSE CASE alert.evidence -> 'movement' ->> 'direction' WHEN 'CREDIT' THEN -alert.amount ELSE alert.amount END
        END;
        SELECT COALESCE(sum(CASE WHEN l.kind = 'DEBIT' THEN l.amount ELSE -l.amount END), 0) INTO effect
          FROM ledger.ledgers l JOIN ledger.accounts a ON a.id = l.account_id JOIN ledger.wallets w ON w.id = a.wallet_id
         WHERE l.transaction_id = fix.transaction_id AND a.account_type = 'suspense' AND w.owner_type = 'SYSTEM'
           AND a.currency = alert.currency;
        IF effect IS DISTINCT FROM expected THEN
          RAISE EXCEPTION 'correction % moves % on the trust account; alert % calls for %', NEW.correction_id, effect, NEW.alert_id, expected
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alert_decisions_correction_fit';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION ledger.reconciliation_sighting_allowed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM ledger.reconciliation_runs r JOIN ledger.reconciliation_alert_keys k ON k.statement_id = r.statement_id
                         JOIN ledger.reconciliation_alerts a ON a.id = k.alert_id
                        WHERE r.id = NEW.run_id AND k.alert_id = NEW.alert_id AND a.run_id <> NEW.run_id)
           AND NOT EXISTS (
             SELECT 1 FROM ledger.reconciliation_runs r JOIN ledger.bank_statements b ON b.id = r.statement_id,
                           ledger.reconciliation_alert_keys k JOIN ledger.bank_statements kb ON kb.id = k.statement_id
                     WHERE r.id = NEW.run_id AND k.alert_id = NEW.alert_id AND k.kind = 'BALANCE_GAP'
                       AND kb.account = b.account AND kb.closing_date < b.closing_date
                       AND EXISTS (SELECT 1 FROM ledger.reconciliation_alert_decisions d WHERE d.alert_id = k.alert_id AND d.decision = 'ACCEPTED')) THEN
          RAISE EXCEPTION 'run % cannot see alert % again: not an earlier alert of its statement, nor an accepted gap of an earlier statement of its account',
            NEW.run_id, NEW.alert_id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alert_sightings_statement';
        END IF;
        RETURN NEW;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE ledger.bank_statements DROP COLUMN IF EXISTS utc_offset`);
    await q.query(`
      CREATE OR REPLACE FUNCTION ledger.reconciliation_decision_allowed() RETURNS trigger LANGUAGE plpgsql AS $$
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
      CREATE OR REPLACE FUNCTION ledger.reconciliation_sighting_allowed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM ledger.reconciliation_runs r JOIN ledger.reconciliation_alert_keys k ON k.statement_id = r.statement_id
                         JOIN ledger.reconciliation_alerts a ON a.id = k.alert_id
                        WHERE r.id = NEW.run_id AND k.alert_id = NEW.alert_id AND a.run_id <> NEW.run_id) THEN
          RAISE EXCEPTION 'run % cannot see alert % again: not an earlier alert of its statement', NEW.run_id, NEW.alert_id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'CHK_reconciliation_alert_sightings_statement';
        END IF;
        RETURN NEW;
      END $$`);
  }
}
