import type { MigrationClass } from '../types';
import { WebhooksInit1763900000000 } from './1763900000000-webhooks-init';
import { EventsPendingUpdatedIndex1764900000000 } from './1764900000000-events-pending-updated-index';
import { RuntimeRolePrivileges1765200000000 } from './1765200000000-runtime-role-privileges';
import { AttemptErrorCodes1765300000000 } from './1765300000000-attempt-error-codes';
import { StaffWebhookOperations1765500000000 } from './1765500000000-staff-webhook-operations';

/** Migrations of the `webhooks` schema, in order. Append new ones; never edit a shipped one. */
export const webhooksMigrations: MigrationClass[] = [
  WebhooksInit1763900000000,
  EventsPendingUpdatedIndex1764900000000,
  RuntimeRolePrivileges1765200000000,
  AttemptErrorCodes1765300000000,
  StaffWebhookOperations1765500000000,
];
