import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '@mm/platform';
import type { CaseSubjectKind } from '../case-facts';
import type { Party } from '../rules/monitoring-rule';

export interface AccountOwner extends Party {
  registeredAt: number | null;
}

/** Entries kept at most; past it the oldest go first. */
const CACHE_SIZE = 20_000;

const KIND_OF_ROLE: Record<string, CaseSubjectKind> = {
  CUSTOMER: 'CUSTOMER',
  MERCHANT: 'MERCHANT',
  AGENT: 'AGENT',
  MASTER_AGENT: 'AGENT',
};

/**
 * Who holds a ledger account, from the orchestrator's own identities (`ledger_accounts` joined to
 * `customers`): no ledger call on the feed's path. An account is given to its holder when the
 * registration creates it and never changes hands, so a found owner is cached for the life of the
 * process (bounded, oldest dropped first). An account with no person (fee collection, treasury, an
 * organisation's float) or not registered yet is not cached: it may be registered a moment later.
 */
@Injectable()
export class AccountOwners {
  private readonly cache = new Map<string, AccountOwner>();

  constructor(private readonly db: DataSource) {}

  async resolve(accountIds: string[]): Promise<Map<string, AccountOwner>> {
    const found = new Map<string, AccountOwner>();
    const missing: string[] = [];
    for (const id of new Set(accountIds)) {
      const cached = this.cache.get(id);
      if (cached) found.set(id, cached);
      else missing.push(id);
    }
    if (missing.length === 0) return found;
    const rows = await queryRows<{ account_id: string; user_id: string; role: string; registered_at: Date | null }>(
      this.db,
      `SELECT a.account_id, c.user_id, c.role, c.registered_at
         FROM orchestrator.ledger_accounts a JOIN orchestrator.customers c ON c.id = a.customer_id
        WHERE a.account_id = ANY($1::uuid[]) AND c.registered_at IS NOT NULL`,
      [missing],
    );
    for (const row of rows) {
      const kind = KIND_OF_ROLE[row.role];
      if (!kind) continue;
      const owner = { userId: row.user_id, kind, registeredAt: row.registered_at ? row.registered_at.getTime() : null };
      found.set(row.account_id, owner);
      this.remember(row.account_id, owner);
    }
    return found;
  }

  private remember(accountId: string, owner: AccountOwner): void {
    if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(accountId, owner);
  }
}
