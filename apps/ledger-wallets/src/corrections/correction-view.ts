import { iso, toMoney } from '../db/money';
import type { CorrectionDirection } from './dto/submit-correction.dto';
import type { CorrectionStatus } from './dto/list-corrections.dto';

export interface CorrectionRow {
  id: string;
  idempotency_key: string;
  request_hash: string;
  account_id: string;
  direction: CorrectionDirection;
  amount: string;
  currency: string;
  reason: string;
  status: CorrectionStatus;
  requires_compliance: boolean;
  maker_id: string;
  maker_roles: string[];
  submitted_at: Date | string;
  checker_id: string | null;
  checker_roles: string[] | null;
  decided_at: Date | string | null;
  decision_reason: string | null;
  transaction_id: string | null;
  alerted_at: Date | string | null;
  correlation_id: string | null;
}

export interface CorrectionEventView {
  event: string;
  actorId: string;
  actorRoles: string[];
  reason: string | null;
  metadata: Record<string, unknown>;
  at: string;
}

export interface CorrectionView {
  id: string;
  accountId: string;
  direction: CorrectionDirection;
  amount: number;
  currency: string;
  reason: string;
  status: CorrectionStatus;
  /** above the compliance limit: only a compliance officer may approve */
  requiresCompliance: boolean;
  maker: { id: string; roles: string[]; submittedAt: string };
  checker: { id: string; roles: string[]; decidedAt: string; reason: string | null } | null;
  /** the adjustment transaction, once executed */
  transactionId: string | null;
  /** when the compliance channel acknowledged the alert of the executed correction */
  alertedAt: string | null;
  /** every step, oldest first (single correction reads only) */
  events?: CorrectionEventView[];
}

export const CORRECTION_COLUMNS =
  'id, idempotency_key, request_hash, account_id, direction, amount::text, currency, reason, status, requires_compliance, maker_id, maker_roles, submitted_at, checker_id, checker_roles, decided_at, decision_reason, transaction_id, alerted_at, correlation_id';

export function toCorrectionView(row: CorrectionRow): CorrectionView {
  return {
    id: row.id,
    accountId: row.account_id,
    direction: row.direction,
    amount: toMoney(row.amount),
    currency: row.currency.trim(),
    reason: row.reason,
    status: row.status,
    requiresCompliance: row.requires_compliance,
    maker: { id: row.maker_id, roles: row.maker_roles, submittedAt: iso(row.submitted_at)! },
    checker: row.checker_id
      ? { id: row.checker_id, roles: row.checker_roles ?? [], decidedAt: iso(row.decided_at)!, reason: row.decision_reason }
      : null,
    transactionId: row.transaction_id,
    alertedAt: iso(row.alerted_at),
  };
}
