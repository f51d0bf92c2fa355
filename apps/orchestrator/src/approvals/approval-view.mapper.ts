import { type ApprovalRow, effectiveStatus } from './approval-requests.store';
import type { ApprovalRequestView } from './approval.views';

/** The row as the API shows it: the effective status, integers for money, ISO instants. */
export function toApprovalView(row: ApprovalRow): ApprovalRequestView {
  return {
    id: row.id,
    action: row.action,
    status: effectiveStatus(row),
    fourEyes: row.four_eyes,
    target: { type: row.target_type, id: row.target_id },
    summary: row.summary,
    amount: row.amount === null || row.currency === null ? null : { value: Number(row.amount), currency: row.currency },
    payload: row.payload,
    reason: row.reason,
    maker: { userId: row.maker_id, role: row.maker_role },
    checker: row.checker_id === null ? null : { userId: row.checker_id, role: row.checker_role ?? '' },
    decisionReason: row.decision_reason,
    result: row.result,
    failure: row.failure_code === null ? null : { code: row.failure_code, message: row.failure_message ?? '' },
    createdAt: iso(row.created_at),
    expiresAt: iso(row.expires_at),
    decidedAt: row.decided_at === null ? null : iso(row.decided_at),
  };
}

function iso(value: Date | string): string {
  return new Date(value).toISOString();
}
