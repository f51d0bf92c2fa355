import { ApprovalDetail } from './approvals/ApprovalDetail';
import { ApprovalsInbox } from './approvals/ApprovalsInbox';
import { Home } from './Home';
import { IntegrityChecks } from './IntegrityChecks';
import type { Screen } from './registry';
import { Staff } from './Staff';

/** Every screen, in navigation order; each is offered to the roles whose permissions reach its routes. */
export const SCREENS: Screen[] = [
  { path: '/', label: 'Home', permission: 'operations.read', nav: true, component: Home },
  { path: '/approvals', label: 'Approvals', permission: 'approvals.read', nav: true, component: ApprovalsInbox },
  { path: '/approvals/:id', label: 'Approval request', permission: 'approvals.read', nav: false, component: ApprovalDetail },
  { path: '/integrity', label: 'Integrity checks', permission: 'compliance.integrity', nav: true, component: IntegrityChecks },
  { path: '/staff', label: 'Staff users', permission: 'users.manage', nav: true, component: Staff },
];
