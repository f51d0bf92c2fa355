import { AppException } from '@mm/errors';
import { businessDayBounds } from './business-day';
import {
  type LedgerAccountStatement,
  SETTLEMENT_LINE_CATEGORIES,
  type SettlementStatement,
  type SettlementStatementLine,
  type StatementPeriod,
} from './settlement-statements';

/*
 * Assembling a settlement statement from the ledger's answer and the paid orders, and writing it
 * as CSV. Pure functions shared by the orchestrator and partners, so a final statement is the same
 * bytes each time a route serves it (docs/statements.md "CSV").
 */

/** What partners knows of a transaction that paid one of its orders, by ledger transaction id. */
export type PaidOrders = ReadonlyMap<string, { orderId: string; externalReference: string | null }>;

function exact(total: bigint, what: string): number {
  if (total > BigInt(Number.MAX_SAFE_INTEGER) || total < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new AppException('AMOUNT_OUT_OF_RANGE', `${what} exceeds 2^53 − 1; refused rather than rounded`);
  }
  return Number(total);
}

/**
 * The statement served to merchants, partners and operators. The totals are recomputed from the
 * lines. The ledger computes opening and closing so that they tie with its lines by construction;
 * the check below only guards this code and the transport against dropping or altering a line.
 * `ordersComplete`: partners has applied every QR payment listed, so no line can still gain its
 * order; the statement is final only then, and once the ledger says its part is.
 */
export function settlementStatement(
  merchantId: string,
  period: StatementPeriod,
  ledger: LedgerAccountStatement,
  orders: PaidOrders,
  ordersComplete: boolean,
): SettlementStatement {
  const byCategory = new Map(SETTLEMENT_LINE_CATEGORIES.map((c) => [c, { count: 0, credits: 0n, debits: 0n }]));
  let credits = 0n;
  let debits = 0n;
  const lines: SettlementStatementLine[] = ledger.lines.map((l) => {
    const total = byCategory.get(l.category)!;
    total.count += 1;
    if (l.direction === 'CREDIT') {
      total.credits += BigInt(l.amount);
      credits += BigInt(l.amount);
    } else {
      total.debits += BigInt(l.amount);
      debits += BigInt(l.amount);
    }
    const order = orders.get(l.transactionId);
    return {
      entryId: l.entryId,
      transactionId: l.transactionId,
      referenceId: l.referenceId,
      bookedAt: l.bookedAt,
      transactionType: l.transactionType,
      category: l.category,
      direction: l.direction,
      amount: l.amount,
      balanceAfter: l.balanceAfter,
      reversalOf: l.reversalOf,
      order: order ? { orderId: order.orderId, externalReference: order.externalReference } : null,
    };
  });
  if (BigInt(ledger.openingBalance) + credits - debits !== BigInt(ledger.closingBalance)) {
    throw new AppException(
      'INTERNAL_ERROR',
      `The statement of account ${ledger.accountId} does not tie: opening ${ledger.openingBalance} + ${credits} − ${debits} ≠ closing ${ledger.closingBalance}`,
    );
  }
  return {
    merchantId,
    accountId: ledger.accountId,
    currency: ledger.currency,
    period: { ...period },
    openingBalance: ledger.openingBalance,
    closingBalance: ledger.closingBalance,
    final: ledger.final && ordersComplete,
    totalCredits: exact(credits, 'the credits of the statement'),
    totalDebits: exact(debits, 'the debits of the statement'),
    totals: SETTLEMENT_LINE_CATEGORIES.map((category) => {
      const t = byCategory.get(category)!;
      return { category, count: t.count, credits: exact(t.credits, category), debits: exact(t.debits, category) };
    }),
    lines,
  };
}

/** The CSV columns, in order (docs/statements.md "CSV"). */
export const SETTLEMENT_CSV_COLUMNS = [
  'row_type',
  'booked_at_utc',
  'booked_at_local',
  'category',
  'transaction_type',
  'reference_id',
  'transaction_id',
  'entry_id',
  'reversal_of',
  'credit',
  'debit',
  'balance_after',
  'currency',
  'order_id',
  'external_reference',
  'final',
] as const;

/**
 * A text cell: quoted when it holds a comma, quote or line break (RFC 4180), and prefixed with an
 * apostrophe when it starts like a spreadsheet formula (a partner's external reference is free text).
 */
export function csvText(value: string | null): string {
  if (value === null || value === '') return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const DAY_MS = 86_400_000;

/** An instant as local time at the offset: `2026-11-27T10:14:03.512+01:00`. */
function local(instant: string, utcOffset: string): string {
  // the offset in ms, from the one definition of days: 1970-01-02 begins `offset` before 24:00 UTC
  const offsetMs = DAY_MS - Date.parse(businessDayBounds('1970-01-02', utcOffset).from);
  return `${new Date(Date.parse(instant) + offsetMs).toISOString().slice(0, 23)}${utcOffset}`;
}

/**
 * The statement as CSV: a header, an OPENING row (balance at the start), one LINE row per ledger
 * entry in the JSON's order, a CLOSING row (total credits and debits, balance at the end); the
 * OPENING and CLOSING rows say in `final` whether the statement is final. Integers in the smallest
 * currency unit, UTF-8 without BOM, CRLF line ends, no generation time: a final statement is the
 * same bytes every time.
 */
export function settlementStatementCsv(s: SettlementStatement): string {
  const tz = s.period.utcOffset;
  const row = (cells: Array<string | number>) => cells.join(',');
  const rows = [SETTLEMENT_CSV_COLUMNS.join(',')];
  rows.push(
    row([
      'OPENING',
      s.period.start,
      local(s.period.start, tz),
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      s.openingBalance,
      s.currency,
      '',
      '',
      String(s.final),
    ]),
  );
  for (const l of s.lines) {
    rows.push(
      row([
        'LINE',
        l.bookedAt,
        local(l.bookedAt, tz),
        l.category,
        l.transactionType,
        l.referenceId,
        l.transactionId,
        l.entryId,
        l.reversalOf ?? '',
        l.direction === 'CREDIT' ? l.amount : '',
        l.direction === 'DEBIT' ? l.amount : '',
        l.balanceAfter,
        s.currency,
        l.order?.orderId ?? '',
        csvText(l.order?.externalReference ?? null),
        '',
      ]),
    );
  }
  rows.push(
    row([
      'CLOSING',
      s.period.end,
      local(s.period.end, tz),
      '',
      '',
      '',
      '',
      '',
      '',
      s.totalCredits,
      s.totalDebits,
      s.closingBalance,
      s.currency,
      '',
      '',
      String(s.final),
    ]),
  );
  return `${rows.join('\r\n')}\r\n`;
}

/** `statement-<merchant>-<currency>-<from>_<to>.csv` */
export function settlementCsvFileName(s: SettlementStatement): string {
  return `statement-${s.merchantId}-${s.currency}-${s.period.fromDate}_${s.period.toDate}.csv`;
}
