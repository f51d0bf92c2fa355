import type { MigrationInterface, QueryRunner } from 'typeorm';
import { restoreRuntimeOwnership, restrictRuntimeRole } from '../runtime-role';

/**
 * svc_ledger stops owning the ledger (docs/ledger.md "Rules the database enforces"; see
 * `../runtime-role.ts`): it can no longer alter a table or switch off the append-only and
 * double-entry triggers. The journals are read and appended to only, and wallets, accounts and
 * corrections are never deleted, so the role is not even granted what their triggers would refuse.
 */
export class RuntimeRolePrivileges1765200000000 implements MigrationInterface {
  name = 'RuntimeRolePrivileges1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await restrictRuntimeRole(q, 'ledger-wallets', {
      appendOnly: [
        'transactions',
        'ledgers',
        'intent_events',
        'correction_events',
        'operator_actions',
        'balance_integrity_checks',
        'balance_integrity_alerts',
        'account_audits',
      ],
      neverDeleted: ['wallets', 'accounts', 'corrections'],
    });
  }

  async down(q: QueryRunner): Promise<void> {
    await restoreRuntimeOwnership(q, 'ledger-wallets');
  }
}
