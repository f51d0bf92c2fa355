import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import {
  type Currency,
  type LedgerAccountStatement,
  type LedgerStatementLine,
  type LedgerTransactionType,
  STATEMENT_MAX_DAYS,
  type SettlementLineCategory,
} from '@mm/contracts';
import { AppException } from '@mm/errors';
import { toMoney } from '../db/money';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import { StatementReadPool } from './statement-read-pool';

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

interface Bounds {
  /** chain_seq of the first entry stamped at or after `from` (null: none yet) */
  seq_from: string | null;
  /** chain_seq of the first entry stamped at or after `to` (null: none yet) */
  seq_to: string | null;
  since_from: string;
  since_to: string;
  lines: string;
  /** entries read from seq_from on, to compare with the account's chain head */
  tail: string;
}

const DAY_MS = 86_400_000;
const SIGNED = `CASE kind WHEN 'CREDIT' THEN amount ELSE -amount END`;

/**
 * One account's statement over [from, to) (docs/statements.md "How it ties to the ledger"), read in
 * one REPEATABLE READ snapshot on the statements' own pool (StatementReadPool), never a payment's
 * session.
 *
 * The lines are a run of the account's chain (`chain_seq`, the order the ledger applied its entries):
 * from the first entry stamped at or after `from` up to, excluded, the first stamped at or after
 * `to`. An entry's stamp (`created_at`) is taken before its locks, so one stamped a moment before a
 * boundary can be applied after one stamped past it; cutting the chain rather than the stamps keeps
 * every `balanceAfter` a balance the account really had (never below zero), and makes consecutive
 * periods meet exactly: a closing balance is the next period's opening.
 *
 * - closing = stored balance − the entries from the `to` cut on;
 * - opening = stored balance − the entries from the `from` cut on;
 * - each balanceAfter = opening + the lines up to it, in chain order.
 *
 * The entries are read through `IDX_ledgers_account_booked` (account_id, created_at) from
 * `from` − LEDGER_STATEMENT_FINAL_AFTER_MS, a bound on the gap between stamp and commit; the count
 * read from the cut on is checked against the account's chain head (chain_seq has no gaps), and a
 * gap wider than the bound is read again without it rather than answered wrong.
 *
 * `final` once `to` is older than that same bound: no entry stamped before `to` can still commit,
 * and the first entry stamped after it, which fixes the cut, is already in place or will come after
 * every entry of the period.
 *
 * A line's category is what the entry is to the holder: the transaction type, which side the
 * account was on, and the account type of the entry's counterparty (a debit paired with
 * `fee_collection` is a fee, a credit paired with `treasury` a commission); any ADJUSTMENT is a
 * REVERSAL when it undoes a transaction, else a CORRECTION.
 */
@Injectable()
export class SettlementStatementService {
  constructor(
    private readonly pool: StatementReadPool,
    private readonly config: LedgerWalletsConfig,
  ) {}

  async statement(accountId: string, from: string, to: string, now = Date.now()): Promise<LedgerAccountStatement> {
    const start = Date.parse(from);
    const end = Date.parse(to);
    if (!(end > start) || end - start > (STATEMENT_MAX_DAYS + 1) * DAY_MS) {
      throw new AppException('SETTLEMENT_PERIOD_INVALID', `from must be before to, at most ${STATEMENT_MAX_DAYS + 1} days apart`);
    }
    // Every statement sums the entries from its start up to now: the age bound is the bound on that work.
    const maxAgeDays = this.config.LEDGER_STATEMENT_MAX_AGE_DAYS;
    if (start < now - maxAgeDays * DAY_MS) {
      throw new AppException('SETTLEMENT_PERIOD_TOO_OLD', `A statement may start at most ${maxAgeDays} days back`);
    }
    const grace = this.config.LEDGER_STATEMENT_FINAL_AFTER_MS;
    const final = now >= end + grace;
    return this.pool.run(async (c) => {
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const [account] = (
        await c.query<{ currency: string; balance: string; head: string }>(
          `SELECT currency, balance::text, chain_seq::text AS head FROM ledger.accounts WHERE id = $1`,
          [accountId],
        )
      ).rows;
      if (!account) throw new AppException('ACCOUNT_NOT_FOUND');
      let lookback = new Date(start - grace).toISOString();
      let bounds = await this.bounds(c, accountId, lookback, from, to);
      if (!complete(bounds, account.head)) {
        // An entry committed more than the grace after its stamp: read without the bound (slow, rare).
        lookback = '-infinity';
        bounds = await this.bounds(c, accountId, lookback, from, to);
        if (!complete(bounds, account.head)) {
          throw new AppException('INTERNAL_ERROR', `The chain of account ${accountId} has gaps: run the chain verification`);
        }
      }
      const count = Number(bounds.lines);
      const maxLines = this.config.LEDGER_STATEMENT_MAX_LINES;
      if (count > maxLines) {
        throw new AppException(
          'SETTLEMENT_STATEMENT_TOO_LARGE',
          `This period holds ${count} ledger entries on the account; a statement lists at most ${maxLines}: ask for a shorter period`,
        );
      }
      const rows = count === 0 ? [] : (await c.query<EntryRow>(LINES_SQL, [accountId, lookback, bounds.seq_from, bounds.seq_to])).rows;
      await c.query('COMMIT');

      const balance = BigInt(account.balance);
      const opening = balance - BigInt(bounds.since_from);
      const closing = balance - BigInt(bounds.since_to);
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
        final,
        lines,
      };
    });
  }

  /** Where the period cuts the chain, and the sums from each cut to the present. */
  private async bounds(c: PoolClient, accountId: string, lookback: string, from: string, to: string): Promise<Bounds> {
    const { rows } = await c.query<Bounds>(
      `WITH e AS (
         SELECT chain_seq, created_at, ${SIGNED} AS signed FROM ledger.ledgers
          WHERE account_id = $1 AND created_at >= $2::timestamptz
       ), cut AS (
         SELECT min(chain_seq) FILTER (WHERE created_at >= $3) AS seq_from, min(chain_seq) FILTER (WHERE created_at >= $4) AS seq_to FROM e
       )
       SELECT cut.seq_from::text, cut.seq_to::text,
              COALESCE(sum(e.signed) FILTER (WHERE e.chain_seq >= cut.seq_from), 0)::text AS since_from,
              COALESCE(sum(e.signed) FILTER (WHERE e.chain_seq >= cut.seq_to), 0)::text AS since_to,
              count(*) FILTER (WHERE e.chain_seq >= cut.seq_from AND (cut.seq_to IS NULL OR e.chain_seq < cut.seq_to))::text AS lines,
              count(*) FILTER (WHERE e.chain_seq >= cut.seq_from)::text AS tail
         FROM cut LEFT JOIN e ON true
        GROUP BY cut.seq_from, cut.seq_to`,
      [accountId, lookback, from, to],
    );
    return rows[0];
  }
}

/** Every entry from the `from` cut to the chain head was read (chain_seq counts 1, 2, 3… per account). */
function complete(b: Bounds, head: string): boolean {
  if (b.seq_from === null) return true;
  return BigInt(b.tail) === BigInt(head) - BigInt(b.seq_from) + 1n;
}

const LINES_SQL = `
  SELECT l.id, l.transaction_id, t.reference_id, t.type, l.kind, l.amount::text, date_trunc('milliseconds', l.created_at) AS booked_at,
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
   WHERE l.account_id = $1 AND l.created_at >= $2::timestamptz
     AND l.chain_seq >= $3 AND ($4::bigint IS NULL OR l.chain_seq < $4)
   ORDER BY l.chain_seq`;
