import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SERVICES } from '@mm/contracts';

/**
 * The orchestrator's witness of the ledger chain's anchors (docs/ledger-chain.md#the-witness).
 *
 * `ledger_chain_witness` holds a copy of each newest anchor the witness job found in the ledger (its
 * number, when it was signed, its MAC and key id, when it was fetched). It lives in the orchestrator's
 * database so that whoever rewrites the ledger's database, anchors included, cannot rewrite it too.
 *
 * `ledger_chain_witness_checks` records what the orchestrator's verification route added to each
 * ledger verification: the witnessed anchor it compared with and the outcome, so the list of past
 * verifications shows a rollback the ledger's own record cannot.
 *
 * Both are append-only: a trigger refuses UPDATE, DELETE and TRUNCATE, and the runtime role may only
 * INSERT and SELECT.
 */
export class LedgerChainWitness1765600400000 implements MigrationInterface {
  name = 'LedgerChainWitness1765600400000';

  async up(q: QueryRunner): Promise<void> {
    const role = SERVICES.orchestrator.role;
    await q.query(`
      CREATE TABLE orchestrator.ledger_chain_witness (
        n bigint PRIMARY KEY CHECK (n >= 1),
        signed_at timestamptz NOT NULL,
        mac text NOT NULL CHECK (mac ~ '^[0-9a-f]{64}$'),
        key_id text NOT NULL CHECK (length(key_id) BETWEEN 1 AND 64),
        fetched_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp())
      )`);
    await q.query(`
      CREATE TABLE orchestrator.ledger_chain_witness_checks (
        verification_id uuid PRIMARY KEY,
        checked_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        -- the highest anchor witnessed when the verification ran; null: none yet (nothing to compare)
        witnessed_n bigint,
        outcome text NOT NULL CHECK (outcome IN ('CONFIRMED', 'ROLLED_BACK', 'NO_WITNESS')),
        break jsonb,
        CONSTRAINT "CHK_ledger_chain_witness_checks_break" CHECK ((outcome = 'ROLLED_BACK') = (break IS NOT NULL))
      )`);
    await q.query(`
      CREATE FUNCTION orchestrator.ledger_chain_witness_forbid_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '%.% is append-only: % forbidden', TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_OP
          USING ERRCODE = 'restrict_violation';
      END $$`);
    for (const table of ['ledger_chain_witness', 'ledger_chain_witness_checks']) {
      await q.query(`
        CREATE TRIGGER trg_${table}_immutable BEFORE UPDATE OR DELETE ON orchestrator.${table}
        FOR EACH ROW EXECUTE FUNCTION orchestrator.ledger_chain_witness_forbid_change()`);
      await q.query(`
        CREATE TRIGGER trg_${table}_no_truncate BEFORE TRUNCATE ON orchestrator.${table}
        FOR EACH STATEMENT EXECUTE FUNCTION orchestrator.ledger_chain_witness_forbid_change()`);
      // default privileges gave the runtime role every row privilege: it appends and reads
      await q.query(`REVOKE UPDATE, DELETE, TRUNCATE ON orchestrator.${table} FROM ${role}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS orchestrator.ledger_chain_witness_checks`);
    await q.query(`DROP TABLE IF EXISTS orchestrator.ledger_chain_witness`);
    await q.query(`DROP FUNCTION IF EXISTS orchestrator.ledger_chain_witness_forbid_change()`);
  }
}
