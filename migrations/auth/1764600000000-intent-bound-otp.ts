import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Three changes to one-time codes (apps/auth/src/otp/otp.service.ts):
 * - `subject_id`: what a code is bound to. An INTENT code names the intent it authorises (its HMAC
 *   covers the id too), so a code read out for one cash-out cannot confirm another. Other purposes
 *   have none. Live INTENT codes from before this change have no subject and could never verify
 *   again: they are discarded here, and the checked rule holds for every row written from now on.
 * - `decoy`: a stand-in code stored when a send reaches a phone that gets no SMS (no account, or an
 *   account that may not receive this purpose). It behaves like a real code on verification (wrong
 *   tries counted, exhaustion, expiry, replacement) and never verifies, so the verify answers do not
 *   tell whether the phone has an account.
 * - `proof_checks`: redemptions of a used code's proof (the internal PIN reset), counted apart from
 *   the wrong guesses at the code, so a code that needed four tries still serves its reset.
 */
export class IntentBoundOtp1764600000000 implements MigrationInterface {
  name = 'IntentBoundOtp1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE auth.otp_codes
        ADD COLUMN subject_id text,
        ADD COLUMN decoy boolean NOT NULL DEFAULT false,
        ADD COLUMN proof_checks integer NOT NULL DEFAULT 0`);
    await q.query(
      `UPDATE auth.otp_codes SET discarded_at = now() WHERE purpose = 'INTENT' AND subject_id IS NULL AND consumed_at IS NULL AND discarded_at IS NULL`,
    );
    await q.query(`
      ALTER TABLE auth.otp_codes
        ADD CONSTRAINT otp_codes_proof_checks_check CHECK (proof_checks >= 0 AND proof_checks <= max_attempts),
        ADD CONSTRAINT otp_codes_decoy_unused_check CHECK (NOT decoy OR (consumed_at IS NULL AND proof_used_at IS NULL)),
        ADD CONSTRAINT otp_codes_subject_check CHECK ((purpose = 'INTENT') = (subject_id IS NOT NULL)) NOT VALID`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE auth.otp_codes
        DROP CONSTRAINT IF EXISTS otp_codes_subject_check,
        DROP CONSTRAINT IF EXISTS otp_codes_decoy_unused_check,
        DROP CONSTRAINT IF EXISTS otp_codes_proof_checks_check`);
    // Stand-in codes have no meaning without the column that marks them: remove them with it.
    await q.query(`DELETE FROM auth.otp_codes WHERE decoy`);
    await q.query(`ALTER TABLE auth.otp_codes DROP COLUMN proof_checks, DROP COLUMN decoy, DROP COLUMN subject_id`);
  }
}
