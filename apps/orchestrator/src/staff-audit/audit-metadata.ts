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
  | 'config'
  | 'workflow'
  | 'audit-trail';

export interface AuditedReadSpec {
  type: AuditTargetType;
  /** the route parameter that names the target (`:userId`); else the query parameter, else none */
  param?: string;
  query?: string;
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
 * an account; see `audit-record.ts`).
 */
export const AuditTarget = (spec: AuditedReadSpec) => SetMetadata(AUDIT_TARGET, spec);
