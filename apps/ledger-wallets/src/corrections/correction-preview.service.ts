import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { LedgerDb } from '../db/ledger-db.service';
import { toMoney } from '../db/money';
import { type EntryLeg, balanceDeltas, pairEntries } from '../execution/double-entry';
import { TechnicalAccountsService } from '../wallets/technical-accounts.service';
import { MAY_GO_NEGATIVE } from './correction-decision';
import { CORRECTION_ROW_COLUMNS, type CorrectionRow } from './correction-view';
import { inverseOf } from './reversal-approval';
import { readReversalTarget } from './reversal-target';

export interface CorrectionPreviewEntry {
  accountId: string;
  accountType: string;
  direction: 'DEBIT' | 'CREDIT';
  amount: number;
}

export interface CorrectionPreviewAccount {
  accountId: string;
  accountType: string;
  balanceBefore: number;
  balanceAfter: number;
  availableBefore: number;
  availableAfter: number;
  /** false when the approval would be refused INSUFFICIENT_BALANCE on this account now */
  sufficient: boolean;
}

export interface CorrectionPreview {
  correctionId: string;
  kind: string;
  status: string;
  currency: string;
  /** only a compliance officer may approve */
  requiresCompliance: boolean;
  /** the postings the approval will write, in the order the ledger writes them */
  entries: CorrectionPreviewEntry[];
  /** each account they touch, now and after the approval (ascending id: the ledger's lock order) */
  accounts: CorrectionPreviewAccount[];
  /** true when every account can give what the entries take: approving now would not be refused for money */
  executable: boolean;
}

/**
 * What approving a correction would write, computed from the same entries the approval writes
 * (CorrectionApproval: one account against suspense; ReversalApproval: the inverse of every entry),
 * with each account's balances now and after. Read-only, no lock: the approval re-checks everything
 * under its lock, so a preview read just before may be outdated by a payment in between.
 */
@Injectable()
export class CorrectionPreviewService {
  constructor(
    private readonly db: LedgerDb,
    private readonly technical: TechnicalAccountsService,
  ) {}

  async preview(id: string): Promise<CorrectionPreview> {
    const [correction] = await this.db.query<CorrectionRow>(`SELECT ${CORRECTION_ROW_COLUMNS} FROM ledger.corrections WHERE id = $1`, [id]);
    if (!correction) throw new AppException('CORRECTION_NOT_FOUND');
    const legs = await this.legs(correction);
    const deltas = balanceDeltas(legs);
    const rows = await this.db.query<{ id: string; account_type: string; balance: string; available_balance: string }>(
      `SELECT id, account_type, balance::text, available_balance::text FROM ledger.accounts WHERE id = ANY($1::uuid[]) ORDER BY id`,
      [deltas.map((d) => d.id)],
    );
    const types = new Map(rows.map((r) => [r.id, r.account_type]));
    const accounts = deltas.map((d): CorrectionPreviewAccount => {
      const row = rows.find((r) => r.id === d.id)!;
      const availableBefore = toMoney(row.available_balance);
      const balanceBefore = toMoney(row.balance);
      return {
        accountId: d.id,
        accountType: row.account_type,
        balanceBefore,
        balanceAfter: balanceBefore + d.balance,
        availableBefore,
        availableAfter: availableBefore + d.available,
        sufficient: d.available >= 0 || MAY_GO_NEGATIVE.includes(row.account_type) || availableBefore >= -d.available,
      };
    });
    return {
      correctionId: correction.id,
      kind: correction.kind,
      status: correction.status,
      currency: correction.currency.trim(),
      requiresCompliance: correction.requires_compliance,
      entries: legs.map((l) => ({
        accountId: l.account_id,
        accountType: types.get(l.account_id) ?? 'unknown',
        direction: l.kind,
        amount: l.amount,
      })),
      accounts,
      executable: accounts.every((a) => a.sufficient),
    };
  }

  private async legs(correction: CorrectionRow): Promise<EntryLeg[]> {
    if (correction.kind === 'REVERSAL') {
      const target = await readReversalTarget(this.db, { id: correction.reversed_transaction_id! });
      if (!target) throw new AppException('TRANSACTION_NOT_FOUND');
      return inverseOf(target.entries);
    }
    const suspense = await this.technical.id('suspense', correction.currency.trim());
    const account = correction.account_id!;
    const amount = toMoney(correction.amount);
    return pairEntries([
      correction.direction === 'CREDIT' ? { from: suspense, to: account, amount } : { from: account, to: suspense, amount },
    ]);
  }
}
