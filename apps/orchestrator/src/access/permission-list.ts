/**
 * Permissions of the public orchestrator routes (docs/roles.md "Roles and permissions" lists who holds each).
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
  /** staff back office: transaction search, the story of a payment, webhook delivery logs, unfinished workflows, a person's 360 view */
  'operations.read',
  /** the approvals inbox: every maker-checker request and its outcome (deciding needs the action's own permission) */
  'approvals.read',
  /** ledger corrections, reversals, agent float funding and holds: submitting them (four eyes approve them) */
  'ledger.corrections',
  /** webhook operations: resend one event, recover undelivered events since a time, enable a disabled endpoint */
  'webhooks.manage',
  /** the staff audit trail: search it and verify its hash chain */
  'audit.read',
  /** transaction monitoring: alerts, cases (assign, annotate, attach evidence, decide) and the rules' state */
  'compliance.monitoring',
  /** regulatory reports: the daily threshold report and suspicion reports, generated, sent and confirmed */
  'compliance.reports',
  /** float reconciliation: trust-account statement imports, matching runs, differences acknowledged and resolved */
  'compliance.reconciliation',
  /** settlement statements of any merchant (a merchant reads its own with merchant.read) */
  'statements.read',
] as const;

export type Permission = (typeof PERMISSIONS)[number];
