import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Intent creation now reads and stores its idempotency key in lower case (a UUID's one spelling):
 * the same key in capitals had created a second intent and frozen the amount twice. Keys stored
 * before that, as sent (an iOS client's UUIDs are upper case), are lowered here, so that a retry of
 * such a creation finds its intent instead of creating another. A key whose lower-case twin already
 * exists (the defect's own double) is left as it is: two intents already stand, and an operator
 * cancels the one not wanted.
 *
 * A retry of a creation stored before this migration under a key in capitals is answered
 * 422 IDEMPOTENCY_KEY_CONFLICT, since its stored request hash covers the key as it was sent: refused,
 * never executed twice.
 */
export class IntentKeysLowerCase1765602100000 implements MigrationInterface {
  name = 'IntentKeysLowerCase1765602100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE ledger.idempotency_keys k SET key = lower(k.key)
       WHERE k.scope = 'intent.create' AND k.key <> lower(k.key)
         AND NOT EXISTS (SELECT 1 FROM ledger.idempotency_keys t WHERE t.scope = k.scope AND t.key = lower(k.key))`);
    await q.query(`
      UPDATE ledger.transaction_intents i SET idempotency_key = lower(i.idempotency_key)
       WHERE i.idempotency_key <> lower(i.idempotency_key)
         AND NOT EXISTS (SELECT 1 FROM ledger.transaction_intents t WHERE t.idempotency_key = lower(i.idempotency_key))`);
  }

  async down(): Promise<void> {
    // The spelling each key was sent with is not kept: nothing to undo.
  }
}
