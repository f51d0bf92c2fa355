import { Injectable } from '@nestjs/common';
import type { LedgerAdjustment, LedgerReversalLink } from '@mm/contracts';
import { LedgerDb } from '../db/ledger-db.service';
import { iso, toMoney } from '../db/money';
import type { AdjustmentsQueryDto } from './dto/statement-queries.dto';

interface AdjustmentRow {
  id: string;
  reference_id: string;
  reversal_of: string | null;
  reversal_of_reference: string | null;
  currency: string;
  amount: string;
  fee: string;
  change: string;
  reason: string | null;
  completed_at: Date;
}

/**
 * What moved a holder's accounts besides its payments: ADJUSTMENT transactions (reversals under
 * maker-checker, account corrections, test funding). The orchestrator's payment records cannot know
 * of them, and without them a customer's history would not add up to its balance
 * (docs/ledger.md "Statements: what moved a holder's accounts besides payments"). Times are cut to
 * the millisecond, in the order as in the answer, so that a keyset cursor made of an ISO time
 * (milliseconds) and an id never repeats or skips a row.
 */
@Injectable()
export class AccountAdjustmentsService {
  constructor(private readonly db: LedgerDb) {}

  async adjustments(query: AdjustmentsQueryDto): Promise<LedgerAdjustment[]> {
    const params: unknown[] = [query.accountIds.toLowerCase().split(',')];
    const where = [`t.type = 'ADJUSTMENT'`];
    const add = (sql: (n: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
    const at = `date_trunc('milliseconds', t.completed_at)`;
    if (query.before) {
      params.push(query.before, query.beforeId ?? 'ffffffff-ffff-ffff-ffff-ffffffffffff');
      where.push(`(${at}, t.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    if (query.from) add((n) => `${at} >= ${n}::timestamptz`, query.from);
    if (query.to) add((n) => `${at} < ${n}::timestamptz`, query.to);
    if (query.referenceId) add((n) => `t.reference_id = ${n}`, query.referenceId);
    params.push(query.limit ?? 20);
    // From ledger.adjustment_accounts (which adjustments touched which accounts, kept by a trigger):
    // only the holder's adjustments and their own entries are read, never its payments' entries.
    const rows = await this.db.query<AdjustmentRow>(
      `SELECT t.id, t.reference_id, t.reversal_of, o.reference_id AS reversal_of_reference, t.currency, t.amount::text, t.fee::text,
              mine.change::text AS change, t.metadata->>'reason' AS reason, ${at} AS completed_at
       FROM (SELECT DISTINCT transaction_id FROM ledger.adjustment_accounts WHERE account_id = ANY($1::uuid[])) a
       JOIN ledger.transactions t ON t.id = a.transaction_id
       CROSS JOIN LATERAL (
         SELECT sum(CASE l.kind WHEN 'CREDIT' THEN l.amount ELSE -l.amount END) AS change
         FROM ledger.ledgers l WHERE l.transaction_id = t.id AND l.account_id = ANY($1::uuid[])) mine
       LEFT JOIN ledger.transactions o ON o.id = t.reversal_of
       WHERE ${where.join(' AND ')}
       ORDER BY ${at} DESC, t.id DESC
       LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => ({
      transactionId: r.id,
      referenceId: r.reference_id,
      kind: r.reversal_of ? 'REVERSAL' : 'CORRECTION',
      reversalOf: r.reversal_of ? { transactionId: r.reversal_of, referenceId: r.reversal_of_reference! } : null,
      currency: r.currency.trim(),
      amount: toMoney(r.amount),
      fee: toMoney(r.fee),
      change: toMoney(r.change),
      reason: r.reason,
      completedAt: iso(r.completed_at)!,
    }));
  }

  /** The reversals of those of `transactionIds` that were reversed (at most one each: UQ_transactions_reversal_of). */
  async reversals(transactionIds: string): Promise<LedgerReversalLink[]> {
    const rows = await this.db.query<{ id: string; reference_id: string; reversal_of: string; completed_at: Date }>(
      `SELECT id, reference_id, reversal_of, date_trunc('milliseconds', completed_at) AS completed_at
       FROM ledger.transactions WHERE reversal_of = ANY($1::uuid[]) ORDER BY reversal_of`,
      [transactionIds.toLowerCase().split(',')],
    );
    return rows.map((r) => ({
      reversalOf: r.reversal_of,
      transactionId: r.id,
      referenceId: r.reference_id,
      completedAt: iso(r.completed_at)!,
    }));
  }
}
