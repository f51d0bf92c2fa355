import { SetMetadata } from '@nestjs/common';

export const AUDITED_READ = 'mm:audited-read';
export const AUDIT_TARGET = 'mm:audit-target';

/** The kind of thing a staff action or read is about, as the audit trail names it. */
export type AuditTargetType =
  | 'person'
  | 'account'
  | 'transaction'
  | 'approval'
  | 'integration'
  | 'webhook-event'
  | 'webhook-endpoint'
  | 'hold'
  | 'config'
  | 'workflow'
  | 'audit-trail'
  | 'merchant'
  | 'monitoring-alert'
  | 'compliance-case'
  | 'regulatory-report'
  | 'bank-statement'
  | 'reconciliation-run'
  | 'reconciliation-alert'
  | 'ledger-chain';

export interface AuditedReadSpec {
  type: AuditTargetType;
  /** the route parameter that names the target (`:userId`); else the query parameter, else none */
  param?: string;
  query?: string;
}

/** `@AuditTarget`: like `@AuditedRead`, or a field of the JSON body (`body: 'accountId'`; an array field lists every id). */
export interface AuditTargetSpec extends AuditedReadSpec {
  body?: string;
}

/**
 * Marks a GET route whose answer is a person's data (a 360 view, a history, a search by phone):
 * when staff call it, the staff audit trail records the read. Every staff write is recorded
 * whatever its route, so writes need no marker.
 */
export const AuditedRead = (spec: AuditedReadSpec) => SetMetadata(AUDITED_READ, spec);

/**
 * Optional on a write: names its target when the route parameter alone does not say what it is
 * (without it the trail guesses from the parameter's name: `customerId` is a person, `accountId`
 * an account; see `audit-record.ts`), or when the target is in the body (`{ type: 'account', body:
 * 'accountId' }`). A body field holding a list (`ids` of a bulk decision) is kept whole in the
 * record's details (`details.targets`), and is the target's id only when it holds one id. Several
 * specs: the first whose field the request carries (a correction names an account or a transaction).
 */
export const AuditTarget = (spec: AuditTargetSpec | AuditTargetSpec[]) => SetMetadata(AUDIT_TARGET, spec);
