import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two guards on retried intent creations.
 *
 * - `payment_intents`: a PENDING record (the ledger was never heard to accept it) may now end
 *   FAILED without a ledger intent. A replay of a withdrawal-QR cash-out whose code has expired
 *   closes its record this way instead of sending the ledger a no-OTP request long after the
 *   customer's consent lapsed. Every other non-PENDING status still needs its ledger intent.
 * - `risk_decisions.input_hash`: a digest of what was judged (stage, type, amount, currency and
 *   the three parties). A stored decision now answers only a request with the same digest; another
 *   request under the same operation id is judged afresh and gets its own row. Rows written before
 *   this migration have no digest and keep answering their operation and stage as before.
 */
export class ConsentReplayGuards1764600000000 implements MigrationInterface {
  name = 'ConsentReplayGuards1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await dropCheckMentioning(q, 'payment_intents', `(ledger_intent_id IS NULL)`);
    await q.query(`
      ALTER TABLE orchestrator.payment_intents ADD CONSTRAINT payment_intents_ledger_intent_check CHECK (
        CASE WHEN status = 'PENDING' THEN ledger_intent_id IS NULL
             WHEN ledger_intent_id IS NULL THEN status = 'FAILED' AND failure_reason IS NOT NULL AND create_response IS NULL
             ELSE true END)`);

    await q.query(`ALTER TABLE orchestrator.risk_decisions ADD COLUMN input_hash text CHECK (input_hash ~ '^[0-9a-f]{64}$')`);
    await q.query(`ALTER TABLE orchestrator.risk_decisions DROP CONSTRAINT risk_decisions_operation_id_stage_key`);
    // One decision per operation, stage and judged input; at most one legacy (digest-less) row per operation and stage.
    await q.query(`CREATE UNIQUE INDEX risk_decisions_input_key ON orchestrator.risk_decisions (operation_id, stage, input_hash)`);
    await q.query(`
      CREATE UNIQUE INDEX risk_decisions_legacy_key ON orchestrator.risk_decisions (operation_id, stage) WHERE input_hash IS NULL`);
  }

  /** Refused while a FAILED record without a ledger intent, or two decisions of one operation and stage, exist. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX orchestrator.risk_decisions_legacy_key`);
    await q.query(`DROP INDEX orchestrator.risk_decisions_input_key`);
    await q.query(
      `ALTER TABLE orchestrator.risk_decisions ADD CONSTRAINT risk_decisions_operation_id_stage_key UNIQUE (operation_id, stage)`,
    );
    await q.query(`ALTER TABLE orchestrator.risk_decisions DROP COLUMN input_hash`);
    await q.query(`ALTER TABLE orchestrator.payment_intents DROP CONSTRAINT payment_intents_ledger_intent_check`);
    await q.query(`ALTER TABLE orchestrator.payment_intents ADD CHECK ((status = 'PENDING') = (ledger_intent_id IS NULL))`);
  }
}

/** Drops the CHECK of `orchestrator.<table>` whose definition contains `fragment` (PostgreSQL named it). */
async function dropCheckMentioning(q: QueryRunner, table: string, fragment: string): Promise<void> {
  const rows = (await q.query(
    `SELECT conname FROM pg_constraint
      WHERE conrelid = $1::regclass AND contype = 'c' AND position($2 IN pg_get_constraintdef(oid)) > 0`,
    [`orchestrator.${table}`, fragment],
  )) as Array<{ conname: string }>;
  if (rows.length !== 1) throw new Error(`expected one CHECK on orchestrator.${table} containing ${fragment}, found ${rows.length}`);
  await q.query(`ALTER TABLE orchestrator.${table} DROP CONSTRAINT "${rows[0].conname}"`);
}
