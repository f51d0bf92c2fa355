import type { components } from '../../api/schema';

/**
 * One record of the trail. A staff write leaves two: `started` (written before it ran, no outcome
 * yet) and `outcome` (how it was answered, same request id); a read or a refusal only the outcome.
 */
export type AuditRecord = components['schemas']['StaffAuditRecordView'];
export type ChainCheck = components['schemas']['AuditChainCheckView'];
export type StaffRole = AuditRecord['actor']['role'];

export const ROLE_LABELS: Record<StaffRole, string> = {
  SUPPORT: 'Support',
  COMPLIANCE: 'Compliance',
  ADMIN: 'Administrator',
  AUDITOR: 'Auditor',
};

/** What each break the chain check reports means, in words. */
export const PROBLEM_LABELS: Record<NonNullable<ChainCheck['firstBroken']>['problem'], string> = {
  MISSING: 'no record holds this number: it was deleted',
  BROKEN_LINK: 'it does not link to the record before it: that one was rewritten',
  HASH_MISMATCH: 'its content is not what was hashed: it was edited',
  HEAD_MISMATCH: 'the last record is not the one the chain head holds',
  BEYOND_HEAD: 'a record was slipped in behind the chain',
  ANCHOR_INVALID: 'a signed anchor does not verify: forged, altered, or an anchor before it removed',
  ANCHOR_MISSING: 'the record a signed anchor names is gone: deleted, or the head moved back',
  ANCHOR_MISMATCH: 'the record a signed anchor names now has another hash: it was rewritten',
};
