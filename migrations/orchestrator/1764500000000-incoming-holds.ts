import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Incoming holds: the credited customer of a confirm (subject kind `PAYEE`) gets a `limit_usage`
 * row too, HELD from the balance-cap check until its credit is in the ledger (SETTLED) or can no
 * longer land (RELEASED). Two credits confirmed at once each saw the balance without the other and
 * could together pass the cap; now each counts the other's held credit.
 *
 * `ledger_intent_id`: the ledger intent of a PAYEE row, which a later check asks the ledger about to
 * tell a credit still on its way (counted) from one already in the balance or one that ended.
 * A PAYEE row never counts as usage of that customer (the usage query joins on the kind).
 */
export class IncomingHolds1764500000000 implements MigrationInterface {
  name = 'IncomingHolds1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orchestrator.limit_usage DROP CONSTRAINT limit_usage_subject_kind_check`);
    await q.query(`
      ALTER TABLE orchestrator.limit_usage
        ADD CONSTRAINT limit_usage_subject_kind_check CHECK (subject_kind IN ('CUSTOMER', 'AGENT', 'PAYEE')),
        ADD COLUMN ledger_intent_id text CHECK (length(ledger_intent_id) BETWEEN 1 AND 200),
        ADD CONSTRAINT limit_usage_payee_intent_check CHECK ((subject_kind = 'PAYEE') = (ledger_intent_id IS NOT NULL))`);
    // The live incoming holds of one customer, read under its lock at every credit's confirm.
    await q.query(`
      CREATE INDEX limit_usage_incoming_idx ON orchestrator.limit_usage (subject_id, currency)
        WHERE subject_kind = 'PAYEE' AND status = 'HELD'`);
  }

  /** Refused by the CHECK while PAYEE rows exist (rows are never deleted): a rollback of this is for an empty table. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX orchestrator.limit_usage_incoming_idx`);
    await q.query(`
      ALTER TABLE orchestrator.limit_usage
        DROP CONSTRAINT limit_usage_payee_intent_check,
        DROP COLUMN ledger_intent_id,
        DROP CONSTRAINT limit_usage_subject_kind_check,
        ADD CONSTRAINT limit_usage_subject_kind_check CHECK (subject_kind IN ('CUSTOMER', 'AGENT'))`);
  }
}
