import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The OTP clean-up (OtpCleanup) deletes codes long past their expiry in batches; without an index
 * on expires_at each batch would read the whole table to find them.
 */
export class OtpCodesExpiryIndex1764800000000 implements MigrationInterface {
  name = 'OtpCodesExpiryIndex1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS otp_codes_expires_at_idx ON auth.otp_codes (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS auth.otp_codes_expires_at_idx`);
  }
}
