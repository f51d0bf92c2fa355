import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each failed attempt gets a stable code of why it failed (`error` stays, for people): the attempt
 * log now also records failures before any request (a secret that does not decrypt, a name that does
 * not resolve, an address the SSRF policy refuses), and an operator or a tool filters on the code.
 * Existing failures are classified from what they recorded. The check keeps code and outcome
 * together: a failure always says why, a success never does.
 */
export class AttemptErrorCodes1765300000000 implements MigrationInterface {
  name = 'AttemptErrorCodes1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhooks.attempts ADD COLUMN error_code text`);
    await q.query(`
      UPDATE webhooks.attempts SET error_code = CASE
          WHEN status_code IS NOT NULL THEN 'WEBHOOK_RECEIVER_HTTP_ERROR'
          WHEN error = 'timeout' THEN 'WEBHOOK_RECEIVER_TIMEOUT'
          WHEN error LIKE 'dns:%' THEN 'WEBHOOK_DNS_FAILED'
          WHEN error LIKE 'refused:%' THEN 'WEBHOOK_ADDRESS_REFUSED'
          ELSE 'WEBHOOK_RECEIVER_UNREACHABLE' END
        WHERE outcome = 'failure'`);
    await q.query(`
      ALTER TABLE webhooks.attempts ADD CONSTRAINT attempts_error_code_check
        CHECK ((outcome = 'failure') = (error_code IS NOT NULL) AND error_code ~ '^WEBHOOK_[A-Z_]+$')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhooks.attempts DROP CONSTRAINT attempts_error_code_check`);
    await q.query(`ALTER TABLE webhooks.attempts DROP COLUMN error_code`);
  }
}
