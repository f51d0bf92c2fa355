import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Proofs of the customer's consent (docs/ledger.md "Consent proofs"; contract in `@mm/contracts`
 * consent.ts).
 *
 * - `transaction_intents.otp_user_id`: the auth user the OTP of an OTP-branch intent goes to; only
 *   that user's OTP proof can move the intent to OTP_VERIFIED. Set exactly when `requires_otp`
 *   (NOT VALID: rows written before this column existed are left alone; every new row is checked).
 * - `consent_proofs`: one row per redeemed proof, keyed by its `jti`, written in the same database
 *   transaction as the move it allowed. The primary key is what makes a proof single use: a second
 *   redemption violates it and the move rolls back.
 */
export class ConsentProofs1764000000000 implements MigrationInterface {
  name = 'ConsentProofs1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE ledger.transaction_intents ADD COLUMN otp_user_id text`);
    await q.query(`
      ALTER TABLE ledger.transaction_intents ADD CONSTRAINT "CHK_transaction_intents_otp_user"
        CHECK (requires_otp = (otp_user_id IS NOT NULL)) NOT VALID`);
    await q.query(`
      CREATE TABLE ledger.consent_proofs (
        jti uuid PRIMARY KEY,
        intent_id uuid NOT NULL REFERENCES ledger.transaction_intents (id),
        step text NOT NULL CHECK (step IN ('PIN', 'OTP')),
        user_id text NOT NULL,
        expires_at timestamptz NOT NULL,
        redeemed_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS ledger.consent_proofs`);
    await q.query(`ALTER TABLE ledger.transaction_intents DROP CONSTRAINT IF EXISTS "CHK_transaction_intents_otp_user"`);
    await q.query(`ALTER TABLE ledger.transaction_intents DROP COLUMN IF EXISTS otp_user_id`);
  }
}
