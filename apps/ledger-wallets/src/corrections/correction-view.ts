import { iso, toMoney } from '../db/money';
import type { CorrectionDirection, CorrectionKind } from './dto/submit-correction.dto';
import type { CorrectionStatus } from './dto/list-corrections.dto';

export interface CorrectionRow {
  id: string;
  idempotency_key: string;
  request_hash: string;
  kind: CorrectionKind;
  /** ACCOUNT only */
  account_id: string | null;
  /** ACCOUNT only */
  direction: CorrectionDirection | null;
  /** REVERSAL only: the transaction reversed, and its reference */
  reversed_transaction_id: string | null;
  /** read with CORRECTION_COLUMNS only */
  reversed_reference_id?: string | null;
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
  /** the reference of transaction_id (read with CORRECTION_COLUMNS only) */
  reference_id?: string | null;
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
  kind: CorrectionKind;
  /** the account corrected (ACCOUNT); null for a REVERSAL, which touches every account of its transaction */
  accountId: string | null;
  direction: CorrectionDirection | null;
  /** REVERSAL: the transaction undone; null for an ACCOUNT correction */
  reversalOf: { transactionId: string; referenceId: string } | null;
  /** ACCOUNT: the amount corrected; REVERSAL: the amount of the transaction reversed */
  amount: number;
  currency: string;
  reason: string;
  status: CorrectionStatus;
  /** above the compliance limit: only a compliance officer may approve */
  requiresCompliance: boolean;
  maker: { id: string; roles: string[]; submittedAt: string };
  checker: { id: string; roles: string[]; decidedAt: string; reason: string | null } | null;
  /** the adjustment (or reversal) transaction, once executed */
  transactionId: string | null;
  /** its reference, once executed */
  referenceId: string | null;
  /** when the compliance channel acknowledged the alert of the executed correction */
  alertedAt: string | null;
  /** every step, oldest first (single correction reads only) */
  events?: CorrectionEventView[];
}

/** The correction's own columns: what a money transaction reads under its lock (it reads no other table). */
export const CORRECTION_ROW_COLUMNS =
  'id, idempotency_key, request_hash, kind, account_id, direction, reversed_transaction_id, amount::text, currency, reason, status, requires_compliance, maker_id, maker_roles, submitted_at, checker_id, checker_roles, decided_at, decision_reason, transaction_id, alerted_at, correlation_id';

/**
 * Every column of a view, for any source with the corrections' columns (the table, or a CTE
 * RETURNING *): its own, plus the two references read from `ledger.transactions` (the column names
 * those use unqualified, `transaction_id` and `reversed_transaction_id`, exist only on the correction
 * side). A transaction inserted by the same statement is not visible to them yet.
 */
export const CORRECTION_COLUMNS =
  `${CORRECTION_ROW_COLUMNS}, ` +
  '(SELECT t.reference_id FROM ledger.transactions t WHERE t.id = reversed_transaction_id) AS reversed_reference_id, ' +
  '(SELECT t.reference_id FROM ledger.transactions t WHERE t.id = transaction_id) AS reference_id';

export function toCorrectionView(row: CorrectionRow): CorrectionView {
  return {
    id: row.id,
    kind: row.kind,
    accountId: row.account_id,
    direction: row.direction,
    reversalOf: row.reversed_transaction_id
      ? { transactionId: row.reversed_transaction_id, referenceId: row.reversed_reference_id ?? '' }
      : null,
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
    referenceId: row.reference_id ?? null,
    alertedAt: iso(row.alerted_at),
  };
}
