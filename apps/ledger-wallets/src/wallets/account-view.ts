import type { Currency, LedgerAccountView } from '@mm/contracts';
import { iso, toMoney } from '../db/money';

export interface AccountRow {
  id: string;
  wallet_id: string;
  account_type: string;
  currency: string;
  holder: string;
  balance: string;
  available_balance: string;
  frozen_balance: string;
  created_at: Date;
  updated_at: Date;
}

/** The contract's account view (the orchestrator reads the same shape). */
export type AccountView = LedgerAccountView;

export const ACCOUNT_COLUMNS =
  'id, wallet_id, account_type, currency, holder, balance, available_balance, frozen_balance, created_at, updated_at';

export function toAccountView(row: AccountRow): AccountView {
  return {
    id: row.id,
    walletId: row.wallet_id,
    accountType: row.account_type,
    currency: row.currency as Currency,
    holder: row.holder,
    balance: toMoney(row.balance),
    availableBalance: toMoney(row.available_balance),
    frozenBalance: toMoney(row.frozen_balance),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}
