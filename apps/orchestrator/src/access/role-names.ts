import type { AppRole } from '@mm/contracts';

/**
 * How messages name a role. The role codes are the contract (`MASTER_AGENT`); a person reading an
 * error reads "a master agent", with the right article (`withArticle`).
 */
const ROLE_NAMES: Record<AppRole, string> = {
  CUSTOMER: 'customer',
  MERCHANT: 'merchant',
  AGENT: 'agent',
  MASTER_AGENT: 'master agent',
  SUPPORT: 'support agent',
  COMPLIANCE: 'compliance officer',
  ADMIN: 'administrator',
  AUDITOR: 'auditor',
};

export function roleName(role: AppRole): string {
  return ROLE_NAMES[role];
}
