import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { LedgerDb } from '../db/ledger-db.service';

export const TECHNICAL_ACCOUNT_TYPES = ['fee_collection', 'treasury', 'suspense', 'black', 'agent_commission'] as const;
export type TechnicalAccountType = (typeof TECHNICAL_ACCOUNT_TYPES)[number];

/**
 * The platform's technical accounts (docs/ledger.md "Wallets and accounts"): FEE_COLLECTION, TREASURY, suspense, black and the
 * platform agent-commission account, one per currency, created by the migration in SYSTEM
 * wallets. Their ids never change, so they are read once.
 */
@Injectable()
export class TechnicalAccountsService {
  private cache?: Map<string, string>;

  constructor(private readonly db: LedgerDb) {}

  async id(type: TechnicalAccountType, currency: string): Promise<string> {
    if (!this.cache) {
      const rows = await this.db.query<{ id: string; account_type: string; currency: string }>(
        `SELECT a.id, a.account_type, a.currency FROM ledger.accounts a JOIN ledger.wallets w ON w.id = a.wallet_id
         WHERE w.owner_type = 'SYSTEM'`,
      );
      this.cache = new Map(rows.map((r) => [`${r.account_type}:${r.currency}`, r.id]));
    }
    const id = this.cache.get(`${type}:${currency}`);
    if (!id) throw new AppException('ACCOUNT_NOT_FOUND', `No ${type} account in ${currency}`);
    return id;
  }
}
