/** Identities, registration and PIN-reset workflows, roles (orchestrator). Never rename or re-status a shipped code; append new ones. */
export const IDENTITY_ERRORS = {
  MERCHANT_NOT_FOUND: { status: 404, message: 'Merchant not found' },
  CUSTOMER_NOT_FOUND: { status: 404, message: 'Customer not found' },
  AGENT_NOT_FOUND: { status: 404, message: 'Agent not found' },
  /** a frozen customer can neither sign in (auth answers ACCOUNT_DISABLED) nor start a money movement */
  CUSTOMER_FROZEN: { status: 403, message: 'The account is frozen' },
  CUSTOMER_CLOSED: { status: 403, message: 'The account is closed' },
  /** roles change only within a family (agent ↔ master agent, staff among staff roles) */
  ROLE_CHANGE_NOT_ALLOWED: { status: 409, message: 'This role change is not allowed' },
  NOT_A_MASTER_AGENT: { status: 422, message: 'The chosen agent is not a master agent' },
  /** auth's deprecated registration routes: registration runs only as the orchestrator's workflow */
  REGISTRATION_MOVED: { status: 410, message: 'Registration moved to POST /api/orchestrator/auth/register*' },
  /** ledger: a wallet is closed (registration compensation) only while nothing ever moved through it */
  WALLET_NOT_EMPTY: { status: 409, message: 'The wallet has balances or entries and cannot be closed' },
} as const satisfies Record<string, { status: number; message: string }>;
