import { STAFF_ROLES } from '@mm/contracts';
import type { Role } from '../common/roles';

/**
 * Staff (SUPPORT, COMPLIANCE, ADMIN, AUDITOR) sign in with a second factor and get shorter tokens
 * and sessions; customers, merchants and agents do not.
 */
export function requiresSecondFactor(roles: readonly Role[]): boolean {
  return roles.some((role) => (STAFF_ROLES as readonly string[]).includes(role));
}
