import { APP_ROLES, type AppRole } from '@mm/contracts';
import type { Permission } from './permission-list';

/**
 * THE role × permission matrix of the platform: the guard grants from it, every route's OpenAPI
 * operation lists the roles it derives from it (`x-allowed-roles`), docs/roles.md is rendered from
 * it (a test keeps them equal) and the e2e role test walks it row by row.
 *
 * What a permission covers for a role is further scoped by the route to the caller's own data:
 * `transactions.read` is one's own history for a customer, one's own customers' for an agent, the
 * affiliated agents' too for a master agent, every transaction for staff.
 */
export const ROLE_PERMISSIONS: Readonly<Record<AppRole, readonly Permission[]>> = {
  CUSTOMER: ['transactions.create', 'transactions.read', 'profile.read', 'profile.update'],
  MERCHANT: ['transactions.read', 'reports.read', 'profile.read', 'profile.update', 'connections.manage', 'merchant.read'],
  AGENT: ['transactions.create', 'transactions.read', 'profile.read', 'profile.update', 'agents.read'],
  MASTER_AGENT: [
    'transactions.create',
    'transactions.read',
    'reports.read',
    'profile.read',
    'profile.update',
    'agents.read',
    'agents.network',
  ],
  SUPPORT: ['transactions.read', 'customers.read', 'profile.read', 'operations.read', 'webhooks.manage'],
  COMPLIANCE: [
    'transactions.read',
    'transactions.approve',
    'reports.read',
    'compliance.audit',
    'compliance.integrity',
    'customers.read',
    'customers.freeze',
    'profile.read',
    'operations.read',
    'approvals.read',
    'ledger.corrections',
    'audit.read',
    'compliance.monitoring',
    'compliance.reports',
    'compliance.reconciliation',
    'statements.read',
  ],
  ADMIN: [
    'transactions.read',
    'transactions.approve',
    'reports.read',
    'compliance.audit',
    'compliance.integrity',
    'customers.read',
    'customers.freeze',
    'users.manage',
    'partners.manage',
    'config.manage',
    'profile.read',
    'operations.read',
    'approvals.read',
    'ledger.corrections',
    'webhooks.manage',
    'audit.read',
    'compliance.monitoring',
    'compliance.reports',
    'compliance.reconciliation',
    'statements.read',
  ],
  // Reads what staff read, changes nothing: every route this role reaches is a GET (roles-matrix test).
  AUDITOR: [
    'transactions.read',
    'reports.read',
    'customers.read',
    'profile.read',
    'operations.read',
    'approvals.read',
    'audit.read',
    'statements.read',
  ],
};

/** The display name of each role, for documents (docs/roles.md "Roles"). */
export const ROLE_LABELS: Readonly<Record<AppRole, string>> = {
  CUSTOMER: 'end user',
  MERCHANT: 'merchant',
  AGENT: 'agent',
  MASTER_AGENT: 'master agent',
  SUPPORT: 'support operator',
  COMPLIANCE: 'compliance / finance officer',
  ADMIN: 'administrator',
  AUDITOR: 'auditor (read-only)',
};

export function isAppRole(value: unknown): value is AppRole {
  return typeof value === 'string' && (APP_ROLES as readonly string[]).includes(value);
}

/** Every permission held through any of the roles (unknown role names grant nothing). */
export function permissionsOf(roles: readonly string[]): Permission[] {
  const granted = new Set<Permission>();
  for (const role of roles) if (isAppRole(role)) for (const p of ROLE_PERMISSIONS[role]) granted.add(p);
  return [...granted];
}

/** The roles that hold every one of these permissions. */
export function rolesWith(permissions: readonly Permission[]): AppRole[] {
  return APP_ROLES.filter((role) => permissions.every((p) => ROLE_PERMISSIONS[role].includes(p)));
}

/**
 * The one role a user acts as. Users are created with exactly one; should an account ever carry
 * several, the first in APP_ROLES order names it (permissions are still the union).
 */
export function primaryRole(roles: readonly string[]): AppRole | undefined {
  return APP_ROLES.find((r) => roles.includes(r));
}
