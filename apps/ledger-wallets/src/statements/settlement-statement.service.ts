import { Injectable } from '@nestjs/common';
import {
  type Currency,
  type LedgerAccountStatement,
  type LedgerStatementLine,
  type LedgerTransactionType,
  STATEMENT_MAX_DAYS,
  STATEMENT_MAX_LINES,
  type SettlementLineCategory,
} from '@mm/contracts';
import { AppException } from '@mm/errors';
import { LedgerDb } from '../db/ledger-db.service';
import { toMoney } from '../db/money';

interface EntryRow {
  id: string;
  transaction_id: string;
  reference_id: string;
  type: LedgerTransactionType;
  kind: 'CREDIT' | 'DEBIT';
  amount: string;
  booked_at: Date;
  category: SettlementLineCategory;
  reversal_of: string | null;
  via_qr: boolean;
}

const DAY_MS = 86_400_000;

/**
 * One account's statement over [from, to), read in one REPEATABLE READ snapshot so that the stored
 * balance and the entries are seen at the same instant (docs/statements.md "How it ties"):
 *
 * - closing = balance − (entries booked at or after `to`);
 * - opening = balance − (entries booked at or after `from`);
 * - the lines are the entries booked in [from, to), each with the balance after it.
 *
 * So opening + Σ lines = closing by construction, and both are the sums of the entries before each
 * instant as long as the stored balance equals the sum of all entries (what the nightly integrity
 * check and the account audit verify). Only the entries since `from` are read, through
 * `IDX_ledgers_account_booked` (account, created_at): a statement of last week does not walk a busy
 * merchant's whole history.
 *
 * A line's category is what the entry is to the holder: the transaction type, which side the account
 * was on, and the account type of the entry's counterparty (a debit paired with `fee_collection` is
 * a fee, a credit paired with `treasury` a commission); any ADJUSTMENT is a REVERSAL when it undoes
 * a transaction, else a CORRECTION.
 */
@Injectable()
export class SettlementStatementService {
  constructor(private readonly db: LedgerDb) {}

  async statement(accountId: string, from: string, to: string): Promise<LedgerAccountStatement> {
    const start = Date.parse(from);
    const end = Date.parse(to);
    if (!(end > start) || end - start > (STATEMENT_MAX_DAYS + 1) * DAY_MS) {
      throw new AppException('SETTLEMENT_PERIOD_INVALID', `from must be before to, at most ${STATEMENT_MAX_DAYS + 1} days apart`);
    }
    return this.db.withSession(async (s) => {
      await s.exec('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      s.inTransaction = true;
      const account = await s.one<{ currency: string; balance: string }>(
        `SELECT currency, balance::text FROM ledger.accounts WHERE id = $1`,
        [accountId],
      );
      if (!account) throw new AppException('ACCOUNT_NOT_FOUND');
      const [since] = await s.query<{ since_from: string; since_to: string; lines: string }>(
        `SELECT COALESCE(sum(CASE kind WHEN 'CREDIT' THEN amount ELSE -amount END), 0)::text AS since_from,
                COALESCE(sum(CASE kind WHEN 'CREDIT' THEN amount ELSE -amount END) FILTER (WHERE created_at >= $3), 0)::text AS since_to,
                count(*) FILTER (WHERE created_at < $3)::text AS lines
         FROM ledger.ledgers WHERE account_id = $1 AND created_at >= $2`,
        [accountId, from, to],
      );
      const count = Number(since.lines);
      if (count > STATEMENT_MAX_LINES) {
        throw new AppException(
          'SETTLEMENT_STATEMENT_TOO_LARGE',
          `This period holds ${count} ledger entries on the account; a statement lists at most ${STATEMENT_MAX_LINES}: ask for a shorter period`,
        );
      }
      const rows = await s.query<EntryRow>(
        `SELECT l.id, l.transaction_id, t.reference_id, t.type, l.kind, l.amount::text, date_trunc('milliseconds', l.created_at) AS booked_at,
                CASE
                  WHEN t.type = 'ADJUSTMENT' AND t.reversal_of IS NOT NULL THEN 'REVERSAL'
                  WHEN t.type = 'ADJUSTMENT' THEN 'CORRECTION'
                  WHEN ca.account_type = 'fee_collection' THEN 'FEE'
                  WHEN ca.account_type = 'treasury' THEN 'COMMISSION'
                  WHEN l.kind = 'CREDIT' AND t.type = 'CASH_IN' THEN 'DEPOSIT'
                  WHEN l.kind = 'CREDIT' THEN 'PAYMENT'
                  ELSE 'PAYOUT'
                END AS category,
                o.reference_id AS reversal_of, (i.qr_token IS NOT NULL) AS via_qr
         FROM ledger.ledgers l
         JOIN ledger.transactions t ON t.id = l.transaction_id
         LEFT JOIN ledger.ledgers c ON c.id = l.counterparty_ledger_id
         LEFT JOIN ledger.accounts ca ON ca.id = c.account_id
         LEFT JOIN ledger.transactions o ON o.id = t.reversal_of
         LEFT JOIN ledger.transaction_intents i ON i.id = t.intent_id
         WHERE l.account_id = $1 AND l.created_at >= $2 AND l.created_at < $3
         ORDER BY l.created_at, t.reference_id, l.id`,
        [accountId, from, to],
      );
      await s.exec('COMMIT');
      s.inTransaction = false;

      const balance = BigInt(account.balance);
      const opening = balance - BigInt(since.since_from);
      const closing = balance - BigInt(since.since_to);
      let running = opening;
      const lines = rows.map((r): LedgerStatementLine => {
        const amount = toMoney(r.amount);
        running += r.kind === 'CREDIT' ? BigInt(amount) : -BigInt(amount);
        return {
          entryId: r.id,
          transactionId: r.transaction_id,
          referenceId: r.reference_id,
          bookedAt: r.booked_at.toISOString(),
          transactionType: r.type,
          category: r.category,
          direction: r.kind,
          amount,
          balanceAfter: toMoney(running.toString()),
          reversalOf: r.reversal_of,
          viaQr: r.via_qr,
        };
      });
      return {
        accountId,
        currency: account.currency.trim() as Currency,
        from: new Date(start).toISOString(),
        to: new Date(end).toISOString(),
        openingBalance: toMoney(opening.toString()),
        closingBalance: toMoney(closing.toString()),
        lines,
      };
    });
  }
}
