import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '@mm/platform';
import { ConfigVersionsService } from '../../config-api/config-versions.service';
import { tierLimits } from '../../limits/limit-rules';
import { countedUsageSql, windowBoundsSql } from '../../limits/usage-windows.sql';
import type { Currency } from '../../common/operation-type';
import type { LimitWindowView, PersonBalanceView } from './person.views';

export interface LimitSubjects {
  /** the customer's user id and KYC tier (customers, merchants and agents as payers) */
  customer?: { userId: string; kycTier: string };
  /** the agent record's id (its ceilings) */
  agentId?: string;
  /** the main balances, for the balance cap (customers only) */
  balances?: PersonBalanceView[];
}

const CURRENCIES: Currency[] = ['XAF', 'XOF'];

/**
 * Used against allowed, per window, as the limits module counts it when it judges an operation:
 * settled usage plus live holds, in the current day and month of the limits' time zone: the same
 * windows as the check (limits/usage-windows.sql.ts); this read decides nothing.
 */
@Injectable()
export class LimitUsageReader {
  constructor(
    private readonly db: DataSource,
    private readonly config: ConfigVersionsService,
  ) {}

  async read(subjects: LimitSubjects): Promise<{ version: number; timezone: string; windows: LimitWindowView[] }> {
    const { version, document } = await this.config.active('limits');
    const keys: Array<{ kind: 'CUSTOMER' | 'AGENT'; id: string }> = [];
    if (subjects.customer) keys.push({ kind: 'CUSTOMER', id: subjects.customer.userId });
    if (subjects.agentId) keys.push({ kind: 'AGENT', id: subjects.agentId });
    const rows = await queryRows<{ kind: 'CUSTOMER' | 'AGENT'; currency: Currency; day: string; month: string }>(
      this.db,
      `WITH bounds AS (${windowBoundsSql('now()', '$3')})
       SELECT u.subject_kind AS kind, u.currency,
              COALESCE(sum(u.amount) FILTER (WHERE u.occurred_at >= b.day_start), 0)::text AS day,
              COALESCE(sum(u.amount), 0)::text AS month
         FROM orchestrator.limit_usage u CROSS JOIN bounds b
        WHERE (u.subject_kind, u.subject_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))
          AND ${countedUsageSql('now()')}
        GROUP BY u.subject_kind, u.currency`,
      [keys.map((k) => k.kind), keys.map((k) => k.id), document.timezone],
    );
    const used = (kind: 'CUSTOMER' | 'AGENT', currency: Currency) => {
      const row = rows.find((r) => r.kind === kind && r.currency === currency);
      return { day: Number(row?.day ?? 0), month: Number(row?.month ?? 0) };
    };
    const window = (subject: LimitWindowView['subject'], currency: Currency, w: LimitWindowView['window'], u: number, limit: number) => ({
      subject,
      currency,
      window: w,
      used: u,
      limit,
      remaining: Math.max(0, limit - u),
    });
    const windows: LimitWindowView[] = [];
    for (const currency of CURRENCIES) {
      if (subjects.customer) {
        const { limits } = tierLimits(document, currency, subjects.customer.kycTier);
        if (limits) {
          const u = used('CUSTOMER', currency);
          windows.push(window('CUSTOMER', currency, 'DAY', u.day, limits.dailyMax));
          windows.push(window('CUSTOMER', currency, 'MONTH', u.month, limits.monthlyMax));
          const main = subjects.balances?.find((b) => b.currency === currency && b.accountType === 'customer');
          if (main) windows.push(window('CUSTOMER', currency, 'BALANCE', main.total, limits.balanceMax));
        }
      }
      const ceilings = subjects.agentId ? document.agents.find((a) => a.currency === currency) : undefined;
      if (ceilings) windows.push(window('AGENT', currency, 'DAY', used('AGENT', currency).day, ceilings.dailyMax));
    }
    return { version, timezone: document.timezone, windows };
  }
}
