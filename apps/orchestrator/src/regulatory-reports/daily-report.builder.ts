import { type Currency, type RegulatoryOperationView, businessDayBounds } from '@mm/contracts';
import {
  CATEGORY_ORDER,
  type DailyOperation,
  type DailyReportContent,
  REPORT_CATEGORIES,
  type ReportParty,
  totalsOf,
} from './report-content';
import { REPORT_TIME_ZONE } from './report-day';

/** `DTR-20261127`: one daily threshold report per day. */
export function dailyReference(day: string): string {
  return `DTR-${day.replaceAll('-', '')}`;
}

/**
 * The daily threshold report of `day` from the ledger's operations at or above each currency's
 * threshold and the parties behind their accounts. Pure: the same inputs give the same content, key
 * for key, in the same order (category, then completion time, then reference).
 */
export function buildDailyContent(
  day: string,
  thresholds: Record<Currency, number>,
  operations: RegulatoryOperationView[],
  party: (accountId: string) => ReportParty,
): DailyReportContent {
  const rows: DailyOperation[] = operations
    .filter((op) => op.amount >= thresholds[op.currency as Currency])
    .map((op) => ({
      category: REPORT_CATEGORIES[op.type],
      type: op.type,
      reference: op.reference,
      transactionId: op.transactionId,
      completedAt: op.completedAt,
      amount: op.amount,
      fee: op.fee,
      currency: op.currency,
      source: party(op.source.accountId),
      destination: party(op.destination.accountId),
    }))
    .sort(
      (a, b) =>
        CATEGORY_ORDER.indexOf(a.type) - CATEGORY_ORDER.indexOf(b.type) ||
        compare(a.completedAt, b.completedAt) ||
        compare(a.reference, b.reference),
    );
  return {
    format: 'mm.regulatory.daily-threshold.v1',
    reference: dailyReference(day),
    reportDate: day,
    timeZone: REPORT_TIME_ZONE,
    window: businessDayBounds(day),
    thresholds: (Object.keys(thresholds) as Currency[]).sort().map((currency) => ({ currency, minAmount: thresholds[currency] })),
    categories: CATEGORY_ORDER.map((type) => ({
      category: REPORT_CATEGORIES[type],
      operationType: type,
      totals: totalsOf(rows.filter((r) => r.type === type)),
    })),
    operations: rows,
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
