import { ApprovalDetail } from './approvals/ApprovalDetail';
import { ApprovalsInbox } from './approvals/ApprovalsInbox';
import { Corrections } from './corrections/Corrections';
import { Home } from './Home';
import { PaymentStory } from './payments/PaymentStory';
import { PaymentsSearch } from './payments/PaymentsSearch';
import { PeopleSearch } from './people/PeopleSearch';
import { Person360 } from './people/Person360';
import { IntegrityChecks } from './IntegrityChecks';
import type { Screen } from './registry';
import { Staff } from './Staff';
import { IntegrationPage } from './partners/IntegrationPage';
import { PartnersList } from './partners/PartnersList';
import { WebhookEventLog } from './partners/WebhookEventLog';
import { ConfigScreen } from './config/ConfigScreen';
import { AuditTrail } from './audit/AuditTrail';
import { Workflows } from './workflows/Workflows';
import { WorkflowDetail } from './workflows/WorkflowDetail';
import { Blocklist } from './risk/Blocklist';
import { MerchantStatement } from './statements/MerchantStatement';
import { Alerts } from './monitoring/Alerts';
import { CaseDetail } from './monitoring/CaseDetail';
import { Cases } from './monitoring/Cases';
import { Reports } from './reports/Reports';
import { Reconciliation } from './reconciliation/Reconciliation';
import { RunDetail } from './reconciliation/RunDetail';
import { ReportDetail } from './reports/ReportDetail';

/** Every screen, in navigation order; each is offered to the roles whose permissions reach its routes. */
export const SCREENS: Screen[] = [
  { path: '/', label: 'Home', permission: 'operations.read', nav: true, component: Home },
  { path: '/people', label: 'People', permission: 'customers.read', nav: true, component: PeopleSearch },
  { path: '/people/:userId', label: 'Person', permission: 'customers.read', nav: false, component: Person360 },
  { path: '/payments', label: 'Payments', permission: 'operations.read', nav: true, component: PaymentsSearch },
  { path: '/payments/:reference', label: 'Payment story', permission: 'operations.read', nav: false, component: PaymentStory },
  { path: '/approvals', label: 'Approvals', permission: 'approvals.read', nav: true, component: ApprovalsInbox },
  { path: '/approvals/:id', label: 'Approval request', permission: 'approvals.read', nav: false, component: ApprovalDetail },
  { path: '/corrections', label: 'Corrections and float', permission: 'approvals.read', nav: true, component: Corrections },
  { path: '/integrity', label: 'Integrity checks', permission: 'compliance.integrity', nav: true, component: IntegrityChecks },
  { path: '/partners', label: 'Partners', permission: 'operations.read', nav: true, component: PartnersList },
  { path: '/partners/:id', label: 'Partner integration', permission: 'operations.read', nav: false, component: IntegrationPage },
  {
    path: '/partners/:id/events/:eventId',
    label: 'Webhook delivery log',
    permission: 'operations.read',
    nav: false,
    component: WebhookEventLog,
  },
  { path: '/workflows', label: 'Workflows', permission: 'operations.read', nav: true, component: Workflows },
  { path: '/workflows/:id', label: 'Workflow', permission: 'operations.read', nav: false, component: WorkflowDetail },
  { path: '/config', label: 'Configuration', permission: 'config.manage', nav: true, component: ConfigScreen },
  { path: '/compliance/alerts', label: 'Monitoring alerts', permission: 'compliance.monitoring', nav: true, component: Alerts },
  { path: '/compliance/cases', label: 'Cases', permission: 'compliance.monitoring', nav: true, component: Cases },
  { path: '/compliance/cases/:caseId', label: 'Case', permission: 'compliance.monitoring', nav: false, component: CaseDetail },
  { path: '/compliance/reports', label: 'Regulatory reports', permission: 'compliance.reports', nav: true, component: Reports },
  {
    path: '/compliance/reports/:id',
    label: 'Regulatory report',
    permission: 'compliance.reports',
    nav: false,
    component: ReportDetail,
  },
  {
    path: '/compliance/reconciliation',
    label: 'Float reconciliation',
    permission: 'compliance.reconciliation',
    nav: true,
    component: Reconciliation,
  },
  {
    path: '/compliance/reconciliation/runs/:runId',
    label: 'Reconciliation run',
    permission: 'compliance.reconciliation',
    nav: false,
    component: RunDetail,
  },
  { path: '/statements', label: 'Merchant statements', permission: 'statements.read', nav: true, component: MerchantStatement },
  { path: '/blocklist', label: 'Blocklist', permission: 'compliance.audit', nav: true, component: Blocklist },
  { path: '/audit', label: 'Audit trail', permission: 'audit.read', nav: true, component: AuditTrail },
  { path: '/staff', label: 'Staff users', permission: 'users.manage', nav: true, component: Staff },
];
