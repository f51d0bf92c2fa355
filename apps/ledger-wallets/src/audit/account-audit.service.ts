import { Injectable, Logger } from '@nestjs/common';
import type { AccountAuditStatus } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { LedgerDb } from '../db/ledger-db.service';
import { iso, toMoney } from '../db/money';
import type { AuditRequester } from './auditors';

export interface AccountAuditReport {
  generatedAt: string;
  status: AccountAuditStatus;
  account: { id: string; walletId: string; holder: string; currency: string; accountType: string; createdAt: string };
  /**
   * What is stored on the account row is a JSON number (the columns are kept within ±(2^53 − 1));
   * what is summed over entries is a decimal string: an account's turnover (and, on a damaged
   * ledger, the recomputed balance and the gap) can exceed what a JSON number carries exactly.
   */
  balances: {
    stored: number;
    /** Σ credits − Σ debits, decimal string */
    recomputed: string;
    /** stored − recomputed, decimal string; non-zero is CRITICAL */
    gap: string;
    available: number;
    frozen: number;
    /** available + frozen = stored */
    consistent: boolean;
  };
  entries: { count: number; debits: string; credits: string };
  symmetry: {
    /** every entry has a counterparty of the opposite kind, same amount, same transaction, linked back */
    ok: boolean;
    unmatchedEntryIds: string[];
  };
  /** entries whose counterparty is missing, or whose transaction does not balance */
  orphans: { entryIds: string[]; unbalancedTransactionIds: string[] };
  findings: string[];
}

/**
 * One account's audit (docs/ledger.md "Audit and the integrity job"): one account's report, read in a single REPEATABLE READ snapshot so the
 * stored balance and the entries are seen at the same instant. It changes no ledger data; each
 * report produced is journaled in the append-only `ledger.account_audits` (who asked, through which
 * service, in which request, and the status found) and logged with the same facts.
 */
@Injectable()
export class AccountAuditService {
  private readonly logger = new Logger(AccountAuditService.name);

  constructor(private readonly db: LedgerDb) {}

  async audit(accountId: string, requester: AuditRequester): Promise<AccountAuditReport> {
    const report = await this.report(accountId);
    const { operator, caller, requestId, correlationId } = requester;
    await this.db.query(
      `INSERT INTO ledger.account_audits (account_id, operator_id, operator_roles, token_id, caller, request_id, correlation_id, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [accountId, operator.id, operator.roles, operator.tokenId, caller ?? null, requestId ?? null, correlationId ?? null, report.status],
    );
    this.logger.log(
      { accountId, operatorId: operator.id, operatorRoles: operator.roles, caller, requestId, correlationId, status: report.status },
      'account audited',
    );
    return report;
  }

  private report(accountId: string): Promise<AccountAuditReport> {
    return this.db.withSession(async (s) => {
      await s.exec('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      s.inTransaction = true;
      const account = await s.one<Record<string, string | Date>>(
        `SELECT a.id, a.wallet_id, a.holder, a.currency, a.account_type, a.created_at, a.balance, a.available_balance, a.frozen_balance
         FROM ledger.accounts a WHERE a.id = $1`,
        [accountId],
      );
      if (!account) throw new AppException('ACCOUNT_NOT_FOUND');
      const [totals] = await s.query<{ n: string; debits: string; credits: string }>(
        `SELECT count(*)::text AS n,
                COALESCE(sum(amount) FILTER (WHERE kind = 'DEBIT'), 0)::text AS debits,
                COALESCE(sum(amount) FILTER (WHERE kind = 'CREDIT'), 0)::text AS credits
         FROM ledger.ledgers WHERE account_id = $1`,
        [accountId],
      );
      const unmatched = await s.query<{ id: string }>(
        `SELECT l.id FROM ledger.ledgers l
         LEFT JOIN ledger.ledgers c ON c.id = l.counterparty_ledger_id
         WHERE l.account_id = $1 AND c.id IS NOT NULL
           AND (c.kind = l.kind OR c.amount <> l.amount OR c.transaction_id <> l.transaction_id OR c.counterparty_ledger_id IS DISTINCT FROM l.id)
         ORDER BY l.id LIMIT 100`,
        [accountId],
      );
      const orphans = await s.query<{ id: string }>(
        `SELECT l.id FROM ledger.ledgers l LEFT JOIN ledger.ledgers c ON c.id = l.counterparty_ledger_id
         WHERE l.account_id = $1 AND c.id IS NULL ORDER BY l.id LIMIT 100`,
        [accountId],
      );
      const unbalanced = await s.query<{ transaction_id: string }>(
        `SELECT x.transaction_id FROM ledger.ledgers x
         WHERE x.transaction_id IN (SELECT transaction_id FROM ledger.ledgers WHERE account_id = $1)
         GROUP BY x.transaction_id HAVING sum(CASE x.kind WHEN 'CREDIT' THEN x.amount ELSE -x.amount END) <> 0 LIMIT 100`,
        [accountId],
      );
      await s.exec('COMMIT');
      s.inTransaction = false;

      const stored = toMoney(account.balance as string);
      // Exact arithmetic on every sum (bigint), reported as decimal strings: an audit is never
      // refused, nor rounded, because an account moved more than 2^53 − 1 over its life.
      const debits = BigInt(totals.debits);
      const credits = BigInt(totals.credits);
      const recomputed = credits - debits;
      const available = toMoney(account.available_balance as string);
      const frozen = toMoney(account.frozen_balance as string);
      const consistent = BigInt(available) + BigInt(frozen) === BigInt(stored);
      const gap = BigInt(stored) - recomputed;
      const balanced = gap === 0n;
      const findings: string[] = [];
      if (!balanced) findings.push(`stored balance ${stored} differs from the ledger sum ${recomputed} by ${gap}`);
      if (!consistent) findings.push(`available ${available} + frozen ${frozen} ≠ balance ${stored}`);
      if (unmatched.length > 0) findings.push(`${unmatched.length} entries without a symmetric counterparty`);
      if (orphans.length > 0) findings.push(`${orphans.length} orphan entries`);
      if (unbalanced.length > 0) findings.push(`${unbalanced.length} transactions whose debits and credits differ`);
      const critical = !balanced || !consistent || unbalanced.length > 0;
      const status: AccountAuditStatus = critical ? 'CRITICAL' : findings.length > 0 ? 'WARNING' : 'OK';

      return {
        generatedAt: new Date().toISOString(),
        status,
        account: {
          id: account.id as string,
          walletId: account.wallet_id as string,
          holder: account.holder as string,
          currency: account.currency as string,
          accountType: account.account_type as string,
          createdAt: iso(account.created_at as Date)!,
        },
        balances: { stored, recomputed: recomputed.toString(), gap: gap.toString(), available, frozen, consistent },
        entries: { count: Number(totals.n), debits: debits.toString(), credits: credits.toString() },
        symmetry: { ok: unmatched.length === 0, unmatchedEntryIds: unmatched.map((r) => r.id) },
        orphans: { entryIds: orphans.map((r) => r.id), unbalancedTransactionIds: unbalanced.map((r) => r.transaction_id) },
        findings,
      };
    });
  }
}
