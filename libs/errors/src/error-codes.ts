import { APPROVALS_ERRORS } from './codes/approvals';
import { AUTH_ERRORS } from './codes/auth';
import { COMMON_ERRORS } from './codes/common';
import { LEDGER_ERRORS } from './codes/ledger';
import { LEDGER_OPERATIONS_ERRORS } from './codes/ledger-operations';
import { PARTNERS_ERRORS } from './codes/partners';
import { WEBHOOKS_ERRORS } from './codes/webhooks';
import { CONSENT_ERRORS } from './codes/consent';
import { CORRECTIONS_ERRORS } from './codes/corrections';
import { IDENTITY_ERRORS } from './codes/identity';
import { MONEY_FLOW_ERRORS } from './codes/money-flow';
import { PAYMENTS_ERRORS } from './codes/payments';
import { RELIABILITY_ERRORS } from './codes/reliability';
import { STAFF_AUTH_ERRORS } from './codes/staff-auth';
import { STAFF_AUDIT_ERRORS } from './codes/staff-audit';
import { TRANSACTION_SEARCH_ERRORS } from './codes/transaction-search';
import { PEOPLE_ERRORS } from './codes/people';
import { WEBHOOK_OPERATIONS_ERRORS } from './codes/webhook-operations';
import { MONITORING_ERRORS } from './codes/monitoring';
import { REGULATORY_REPORTS_ERRORS } from './codes/regulatory-reports';
import { RECONCILIATION_ERRORS } from './codes/reconciliation';
import { SETTLEMENT_STATEMENTS_ERRORS } from './codes/settlement-statements';
import { LEDGER_CHAIN_ERRORS } from './codes/ledger-chain';

/**
 * The single catalogue of stable error codes of the platform, composed from one section per domain
 * (`codes/*.ts`). A code is part of the public contract: once shipped it is never renamed or given
 * another status. `status` is the HTTP status every service answers with.
 */
export const ERROR_CATALOG = {
  ...COMMON_ERRORS,
  ...PARTNERS_ERRORS,
  ...LEDGER_ERRORS,
  ...LEDGER_OPERATIONS_ERRORS,
  ...AUTH_ERRORS,
  ...WEBHOOKS_ERRORS,
  ...IDENTITY_ERRORS,
  ...MONEY_FLOW_ERRORS,
  ...CONSENT_ERRORS,
  ...CORRECTIONS_ERRORS,
  ...RELIABILITY_ERRORS,
  ...PAYMENTS_ERRORS,
  ...APPROVALS_ERRORS,
  ...STAFF_AUDIT_ERRORS,
  ...PEOPLE_ERRORS,
  ...TRANSACTION_SEARCH_ERRORS,
  ...WEBHOOK_OPERATIONS_ERRORS,
  ...STAFF_AUTH_ERRORS,
  ...MONITORING_ERRORS,
  ...REGULATORY_REPORTS_ERRORS,
  ...RECONCILIATION_ERRORS,
  ...SETTLEMENT_STATEMENTS_ERRORS,
  ...LEDGER_CHAIN_ERRORS,
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOG, value);
}

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOG[code].status;
}
