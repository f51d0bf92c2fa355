/**
 * Why staff froze a person: a code the console can filter and count, beside the free-text note.
 * The database holds the same list (`customer_status_events.reason_code`): add, never rename.
 */
export const FREEZE_REASON_CODES = ['FRAUD_SUSPECTED', 'KYC_REVIEW', 'CUSTOMER_REQUEST', 'COURT_ORDER', 'LOST_DEVICE', 'OTHER'] as const;
export type FreezeReasonCode = (typeof FREEZE_REASON_CODES)[number];
