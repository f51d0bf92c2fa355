import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Auditors are staff (docs/roles.md "Roles": read-only; an administrator creates them like support
 * operators), and a freeze records its reason code. The code is null on the status events written
 * before it existed and on unfreezes.
 *
 * The indexes behind the back office's people search (`PeopleSearchService`): a phone's beginning
 * and a name's beginning, case-folded, are `LIKE 'prefix%'` on `text_pattern_ops` btrees (a plain
 * btree serves LIKE only under the C collation; databases here are C.UTF-8 or another locale), and
 * a wallet id is an equality. The search's queries are written on exactly these expressions.
 */
const SEARCH_INDEXES: Array<[name: string, on: string]> = [
  ['customers_phone_prefix_idx', 'orchestrator.customers (phone text_pattern_ops)'],
  ['customers_wallet_idx', 'orchestrator.customers (wallet_id)'],
  ['profiles_full_name_prefix_idx', "orchestrator.profiles (lower(first_name || ' ' || last_name) text_pattern_ops)"],
  ['profiles_last_name_prefix_idx', 'orchestrator.profiles (lower(last_name) text_pattern_ops)'],
  ['merchants_business_name_prefix_idx', 'orchestrator.merchants (lower(business_name) text_pattern_ops)'],
  ['staff_phone_prefix_idx', 'orchestrator.staff (phone text_pattern_ops)'],
  ['staff_full_name_prefix_idx', "orchestrator.staff (lower(first_name || ' ' || last_name) text_pattern_ops)"],
  ['staff_last_name_prefix_idx', 'orchestrator.staff (lower(last_name) text_pattern_ops)'],
  ['ledger_accounts_wallet_idx', 'orchestrator.ledger_accounts (wallet_id)'],
];
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
    for (const [name, on] of SEARCH_INDEXES) await q.query(`CREATE INDEX ${name} ON ${on}`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [name] of SEARCH_INDEXES) await q.query(`DROP INDEX orchestrator.${name}`);
    await q.query(`ALTER TABLE orchestrator.customer_status_events DROP COLUMN reason_code`);
    await q.query(`DELETE FROM orchestrator.staff WHERE role = 'AUDITOR'`);
    await q.query(`ALTER TABLE orchestrator.staff DROP CONSTRAINT staff_role_check`);
    await q.query(`ALTER TABLE orchestrator.staff ADD CONSTRAINT staff_role_check CHECK (role IN ('SUPPORT', 'COMPLIANCE', 'ADMIN'))`);
  }
}
