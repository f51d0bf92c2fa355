import { iso, toMoney } from '../db/money';

export const HOLD_STATUSES = ['ACTIVE', 'RELEASED'] as const;
export type HoldStatus = (typeof HOLD_STATUSES)[number];

export interface HoldRow {
  id: string;
  idempotency_key: string;
  request_hash: string;
  account_id: string;
  amount: string;
  currency: string;
  reason: string;
  status: HoldStatus;
  placed_by: string;
  placed_roles: string[];
  requested_by: string | null;
  placed_at: Date | string;
  released_by: string | null;
  released_roles: string[] | null;
  release_requested_by: string | null;
  release_key: string | null;
  release_reason: string | null;
  released_at: Date | string | null;
}

export interface HoldView {
  id: string;
  accountId: string;
  amount: number;
  currency: string;
  reason: string;
  status: HoldStatus;
  placed: { by: string; roles: string[]; requestedBy: string | null; at: string };
  released: { by: string; roles: string[]; requestedBy: string | null; reason: string; at: string } | null;
}

export const HOLD_COLUMNS =
  'id, idempotency_key, request_hash, account_id, amount::text, currency, reason, status, placed_by, placed_roles, requested_by, placed_at, ' +
  'released_by, released_roles, release_requested_by, release_key, release_reason, released_at';

export function toHoldView(row: HoldRow): HoldView {
  return {
    id: row.id,
    accountId: row.account_id,
    amount: toMoney(row.amount),
    currency: row.currency.trim(),
    reason: row.reason,
    status: row.status,
    placed: { by: row.placed_by, roles: row.placed_roles, requestedBy: row.requested_by, at: iso(row.placed_at)! },
    released:
      row.status === 'RELEASED'
        ? {
            by: row.released_by!,
            roles: row.released_roles ?? [],
            requestedBy: row.release_requested_by,
            reason: row.release_reason!,
            at: iso(row.released_at)!,
          }
        : null,
  };
}
