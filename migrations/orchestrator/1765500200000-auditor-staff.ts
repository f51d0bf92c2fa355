import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 26: auditors are staff (read-only; an administrator creates them like support operators),
 * and a freeze records its reason code. The code is null on the status events written before it
 * existed and on unfreezes.
 */
export class AuditorStaff1765500200000 implements MigrationInterface {
  name = 'AuditorStaff1765500200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orchestrator.staff DROP CONSTRAINT staff_role_check`);
    await q.query(
      `ALTER TABLE orchestrator.staff ADD CONSTRAINT staff_role_check CHECK (role IN ('SUPPORT', 'COMPLIANCE', 'ADMIN', 'AUDITOR'))`,
    );
    // the codes of FREEZE_REASON_CODES (apps/orchestrator/src/backoffice/people/freeze-reasons.ts) as they shipped
    await q.query(
      `ALTER TABLE orchestrator.customer_status_events ADD COLUMN reason_code text
         CHECK (reason_code IN ('FRAUD_SUSPECTED', 'KYC_REVIEW', 'CUSTOMER_REQUEST', 'COURT_ORDER', 'LOST_DEVICE', 'OTHER'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orchestrator.customer_status_events DROP COLUMN reason_code`);
    await q.query(`DELETE FROM orchestrator.staff WHERE role = 'AUDITOR'`);
    await q.query(`ALTER TABLE orchestrator.staff DROP CONSTRAINT staff_role_check`);
    await q.query(`ALTER TABLE orchestrator.staff ADD CONSTRAINT staff_role_check CHECK (role IN ('SUPPORT', 'COMPLIANCE', 'ADMIN'))`);
  }
}
