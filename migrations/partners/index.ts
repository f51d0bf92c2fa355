import type { MigrationClass } from '../types';
import { PartnersInit1764000000000 } from './1764000000000-partners-init';
import { ConnectionPendingRef1764400000000 } from './1764400000000-connection-pending-ref';
import { RuntimeRolePrivileges1765200000000 } from './1765200000000-runtime-role-privileges';
import { OrderTransactionIndex1765600200000 } from './1765600200000-order-transaction-index';
import { EventsWakeNotify1765601380000 } from './1765601380000-events-wake-notify';

/** Migrations of the `partners` schema, in order. Append new ones; never edit a shipped one. */
export const partnersMigrations: MigrationClass[] = [
  PartnersInit1764000000000,
  ConnectionPendingRef1764400000000,
  RuntimeRolePrivileges1765200000000,
  OrderTransactionIndex1765600200000,
  EventsWakeNotify1765601380000,
];
