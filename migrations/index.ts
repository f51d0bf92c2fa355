import type { ServiceName } from '@mm/contracts';
import { authMigrations } from './auth';
import { ledgerMigrations } from './ledger';
import { orchestratorMigrations } from './orchestrator';
import { partnersMigrations } from './partners';
import type { MigrationClass } from './types';
import { webhooksMigrations } from './webhooks';

/** Each service's migrations, run in its own schema under its own role (`npm run migrate`). */
export const MIGRATIONS: Record<ServiceName, MigrationClass[]> = {
  orchestrator: orchestratorMigrations,
  auth: authMigrations,
  partners: partnersMigrations,
  'ledger-wallets': ledgerMigrations,
  'webhook-dispatcher': webhooksMigrations,
};
