import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `payment_intents.status` mirrored the ledger's intent status (nine values, written after every
 * step). The ledger's intent is the only status now (docs/architecture.md "The payment path"); the
 * record keeps `stage`, how far the orchestrator's OWN work on the operation got:
 * - PENDING: stored, the ledger has not been heard to create the intent;
 * - CREATED: the ledger created it (its id and the create answer are stored);
 * - SETTLED: the success is recorded here (history row, SMS in the outbox, limit usage);
 * - CLOSED: nothing more to do here: closed before the ledger created anything, or the ledger ended
 *   the intent without success after a confirm and the limit hold went back.
 * The balance cap moved into the ledger's confirm, so the credits held for a payee (limit_usage
 * rows of kind PAYEE) end here too.
 */
export class PaymentRecordStage1765601500000 implements MigrationInterface {
  name = 'PaymentRecordStage1765601500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orchestrator.payment_intents ADD COLUMN stage text`);
    await q.query(`
      UPDATE orchestrator.payment_intents SET stage = CASE
        WHEN status = 'PENDING' THEN 'PENDING'
        WHEN status = 'SUCCEEDED' THEN 'SETTLED'
        WHEN status IN ('FAILED', 'EXPIRED', 'CANCELED') THEN 'CLOSED'
        ELSE 'CREATED' END`);
    // The guard names the column: replaced before the column goes.
    await q.query(guard({ column: 'stage', pending: 'PENDING', finals: ['SETTLED', 'CLOSED'], succeeded: 'SETTLED' }));
    // Dropping the column drops its CHECKs and the history indexes whose predicate names it.
    await q.query(`ALTER TABLE orchestrator.payment_intents DROP COLUMN status`);
    await q.query(`ALTER TABLE orchestrator.payment_intents ALTER COLUMN stage SET NOT NULL`);
    await q.query(`
      ALTER TABLE orchestrator.payment_intents
        ADD CONSTRAINT payment_intents_stage_check CHECK (stage IN ('PENDING', 'CREATED', 'SETTLED', 'CLOSED')),
        ADD CONSTRAINT payment_intents_ledger_intent_check CHECK (
          CASE WHEN stage = 'PENDING' THEN ledger_intent_id IS NULL
               WHEN ledger_intent_id IS NULL THEN stage = 'CLOSED' AND failure_reason IS NOT NULL AND create_response IS NULL
               ELSE true END),
        ADD CONSTRAINT payment_intents_settled_check CHECK (stage <> 'SETTLED' OR (transaction_id IS NOT NULL
          AND reference_id IS NOT NULL AND completed_at IS NOT NULL AND charged_fee IS NOT NULL AND confirm_response IS NOT NULL))`);
    for (const column of ['payer_user_id', 'payee_user_id', 'agent_user_id', 'master_agent_user_id']) {
      await q.query(
        `CREATE INDEX IF NOT EXISTS payment_intents_${column.replace('_user_id', '')}_history_idx ON orchestrator.payment_intents
           (${column}, completed_at DESC, id DESC) WHERE stage = 'SETTLED' AND ${column} IS NOT NULL`,
      );
    }
    await q.query(
      `CREATE INDEX IF NOT EXISTS payment_intents_history_idx ON orchestrator.payment_intents (completed_at DESC, id DESC) WHERE stage = 'SETTLED'`,
    );
    // The completion sweep's work list: confirms asked and neither settled nor closed, oldest touch
    // first. Only real work is in it (an intent abandoned before its confirm never enters it).
    await q.query(
      `CREATE INDEX payment_intents_unfinished_confirm_idx ON orchestrator.payment_intents (updated_at)
         WHERE confirm_request IS NOT NULL AND stage = 'CREATED'`,
    );
    await q.query(`ALTER TABLE orchestrator.payment_intents SET (fillfactor = 90)`);
    await q.query(
      `UPDATE orchestrator.limit_usage SET status = 'RELEASED', released_at = now() WHERE subject_kind = 'PAYEE' AND status = 'HELD'`,
    );
  }

  /** Back to a status column: each stage as the status it stood for (CLOSED as FAILED, CREATED as CREATED). */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS orchestrator.payment_intents_unfinished_confirm_idx`);
    await q.query(`ALTER TABLE orchestrator.payment_intents RESET (fillfactor)`);
    await q.query(`ALTER TABLE orchestrator.payment_intents ADD COLUMN status text`);
    await q.query(`
      UPDATE orchestrator.payment_intents SET status = CASE stage
        WHEN 'PENDING' THEN 'PENDING' WHEN 'SETTLED' THEN 'SUCCEEDED' WHEN 'CLOSED' THEN 'FAILED' ELSE 'CREATED' END,
        failure_reason = CASE WHEN stage = 'CLOSED' THEN COALESCE(failure_reason, 'closed') ELSE failure_reason END`);
    await q.query(
      guard({ column: 'status', pending: 'PENDING', finals: ['SUCCEEDED', 'FAILED', 'EXPIRED', 'CANCELED'], succeeded: 'SUCCEEDED' }),
    );
    await q.query(`ALTER TABLE orchestrator.payment_intents DROP COLUMN stage`);
    await q.query(`
      ALTER TABLE orchestrator.payment_intents ALTER COLUMN status SET NOT NULL,
        ADD CHECK (status IN ('PENDING', 'CREATED', 'OTP_SENT', 'OTP_VERIFIED', 'PIN_VERIFIED', 'SUCCEEDED', 'FAILED', 'EXPIRED', 'CANCELED')),
        ADD CONSTRAINT payment_intents_ledger_intent_check CHECK (
          CASE WHEN status = 'PENDING' THEN ledger_intent_id IS NULL
               WHEN ledger_intent_id IS NULL THEN status = 'FAILED' AND failure_reason IS NOT NULL AND create_response IS NULL
               ELSE true END),
        ADD CHECK (status <> 'SUCCEEDED' OR (transaction_id IS NOT NULL AND reference_id IS NOT NULL AND completed_at IS NOT NULL
               AND charged_fee IS NOT NULL AND confirm_response IS NOT NULL))`);
    for (const column of ['payer_user_id', 'payee_user_id', 'agent_user_id', 'master_agent_user_id']) {
      await q.query(
        `CREATE INDEX payment_intents_${column.replace('_user_id', '')}_history_idx ON orchestrator.payment_intents
           (${column}, completed_at DESC, id DESC) WHERE status = 'SUCCEEDED' AND ${column} IS NOT NULL`,
      );
    }
    await q.query(
      `CREATE INDEX payment_intents_history_idx ON orchestrator.payment_intents (completed_at DESC, id DESC) WHERE status = 'SUCCEEDED'`,
    );
  }
}

/** Money, parties and prices of a record never change once written; only its progress, and that only forward. */
function guard(g: { column: string; pending: string; finals: string[]; succeeded: string }): string {
  const finals = g.finals.map((f) => `'${f}'`).join(', ');
  return `
      CREATE OR REPLACE FUNCTION orchestrator.payment_intents_guard() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          IF OLD.${g.column} <> '${g.pending}' THEN
            RAISE EXCEPTION 'orchestrator.payment_intents: only a PENDING row may be deleted (id %)', OLD.id USING ERRCODE = 'restrict_violation';
          END IF;
          RETURN OLD;
        END IF;
        IF NEW.idempotency_key <> OLD.idempotency_key OR NEW.request_hash <> OLD.request_hash OR NEW.type <> OLD.type
           OR NEW.amount <> OLD.amount OR NEW.currency <> OLD.currency OR NEW.source_account_id <> OLD.source_account_id
           OR NEW.destination_account_id <> OLD.destination_account_id OR NEW.quote_id <> OLD.quote_id
           OR NEW.initiator_user_id <> OLD.initiator_user_id OR NEW.ledger_request <> OLD.ledger_request
           OR (OLD.ledger_intent_id IS NOT NULL AND NEW.ledger_intent_id IS DISTINCT FROM OLD.ledger_intent_id)
           OR (OLD.confirm_request IS NOT NULL AND NEW.confirm_request IS DISTINCT FROM OLD.confirm_request) THEN
          RAISE EXCEPTION 'orchestrator.payment_intents: the terms of intent % cannot change', OLD.id USING ERRCODE = 'restrict_violation';
        END IF;
        IF OLD.${g.column} IN (${finals}) AND NEW.${g.column} <> OLD.${g.column} THEN
          RAISE EXCEPTION 'orchestrator.payment_intents: intent % is final (%)', OLD.id, OLD.${g.column} USING ERRCODE = 'restrict_violation';
        END IF;
        IF OLD.${g.column} = '${g.succeeded}' AND (NEW.transaction_id IS DISTINCT FROM OLD.transaction_id
           OR NEW.reference_id IS DISTINCT FROM OLD.reference_id OR NEW.charged_fee IS DISTINCT FROM OLD.charged_fee
           OR NEW.confirm_response IS DISTINCT FROM OLD.confirm_response) THEN
          RAISE EXCEPTION 'orchestrator.payment_intents: the outcome of intent % cannot change', OLD.id USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
      END $$`;
}
