/**
 * Permissions of the public orchestrator routes (spec 2 "Authentication" names the first five).
 * The role × permission matrix that grants them is `role-matrix.ts`. Names are part of the
 * documented contract: add, never rename.
 */
export const PERMISSIONS = [
  'transactions.create',
  'transactions.read',
  'transactions.approve',
  'reports.read',
  'compliance.audit',
  'compliance.integrity',
  /** own profile, own wallet balances */
  'profile.read',
  'profile.update',
  /** merchant side of partner connections: list, accept, reject, revoke */
  'connections.manage',
  /** agents: float and commission balances; master agents: their agents */
  'agents.read',
  /** staff: create support/compliance users, change roles, freeze/unfreeze, search customers */
  'users.manage',
  'customers.read',
  'customers.freeze',
  /** admin: partner integrations, keys, webhook secrets, admin revoke of connections */
  'partners.manage',
  /** fee, limit and commission grids: read for everyone authenticated, change for admins */
  'config.manage',
  /** a merchant's own merchant record and its wallet balances */
  'merchant.read',
  /** a master agent's network: the agents affiliated to it */
  'agents.network',
] as const;

export type Permission = (typeof PERMISSIONS)[number];
