import { AccountAuditReportView, LEDGER_ACCOUNT_TYPES, type SameShape } from '@mm/contracts';
import { ACCOUNT_TYPES } from '../wallets/dto/wallet.views';
import type { AccountAuditReport } from './account-audit.service';

/*
 * The OpenAPI shape of the account audit report is shared with the orchestrator, which relays it
 * unchanged (libs/contracts compliance-views.ts). Here the compiler checks that the report the
 * service builds and that class have the same fields, part by part, so a field added to the
 * report without its documentation (or documented but never built) fails to compile; the
 * money-range test compares a real report with the schema.
 */
export { AccountAuditReportView };

const reportDocumented: SameShape<AccountAuditReport, AccountAuditReportView> = true;
// The documented account types are the ledger's own.
const accountTypesDocumented: SameShape<(typeof ACCOUNT_TYPES)[number], (typeof LEDGER_ACCOUNT_TYPES)[number]> = true;
void [reportDocumented, accountTypesDocumented];
