import type { AccountAuditReportView, SameShape } from '@mm/contracts';
import type { AccountAuditReport } from './account-audit.service';

/*
 * The OpenAPI shape of the account audit report is shared with the orchestrator, which relays it
 * unchanged (libs/contracts compliance-views.ts; the controller documents its route with it). Here
 * the compiler checks that the report the service builds and that class have the same fields,
 * part by part, so a field added to the report without its documentation (or documented but never
 * built) fails to compile; the money-range test compares a real report with the schema.
 */
const reportDocumented: SameShape<AccountAuditReport, AccountAuditReportView> = true;
void reportDocumented;
