import type { RegulatoryOperationType } from '@mm/contracts';
import type { CaseSubjectKind } from '../monitoring/case-facts';

/*
 * What a report says, as stored (canonical JSON: these objects are built with their keys in a fixed
 * order, so the same facts always give the same text and the same SHA-256). The CSV and HTML
 * documents are rendered from it and nothing else. Amounts are integers in the smallest unit;
 * sums are decimal strings (a sum may leave the safe integer range where no amount does).
 */

export const REPORT_KINDS = ['DAILY_THRESHOLD', 'SUSPICION'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

/**
 * The regulation's categories, one per ledger operation type. Merchant payments are TRANSFERs and
 * are reported with the e-money transfers (their destination role says MERCHANT): moving large sums
 * to a merchant's account is a way to place money like any other, and the reporting duty is on the
 * amount moved, whatever was bought.
 */
export const REPORT_CATEGORIES = {
  CASH_IN: 'CASH_FUNDED',
  CASH_OUT: 'CASH_WITHDRAWAL',
  TRANSFER: 'E_MONEY_TRANSFER',
} as const satisfies Record<RegulatoryOperationType, string>;
export type ReportCategory = (typeof REPORT_CATEGORIES)[RegulatoryOperationType];
export const CATEGORY_ORDER: readonly RegulatoryOperationType[] = ['CASH_IN', 'CASH_OUT', 'TRANSFER'];
export const CATEGORY_TITLES: Record<ReportCategory, string> = {
  CASH_FUNDED: 'Cash-funded operations (cash-in at an agent)',
  CASH_WITHDRAWAL: 'Cash withdrawals (cash-out at an agent)',
  E_MONEY_TRANSFER: 'E-money transfers (between holders, merchant payments included)',
};

/** Who held an account, as the platform knows them when the report is built. */
export interface ReportParty {
  accountId: string;
  /** the ledger account type (customer, agent, merchant, organisation, or a technical one) */
  accountType: string;
  /** CUSTOMER, MERCHANT, AGENT, MASTER_AGENT, ORGANISATION, or PLATFORM for a technical account */
  role: string;
  name: string;
  phone: string | null;
  kycTier: string | null;
  agentCode: string | null;
}

export interface CurrencyTotal {
  currency: string;
  count: number;
  amount: string;
}

export interface DailyOperation {
  category: ReportCategory;
  type: RegulatoryOperationType;
  reference: string;
  transactionId: string;
  completedAt: string;
  amount: number;
  fee: number;
  currency: string;
  source: ReportParty;
  destination: ReportParty;
}

export interface DailyReportContent {
  format: 'mm.regulatory.daily-threshold.v1';
  reference: string;
  reportDate: string;
  timeZone: string;
  window: { from: string; to: string };
  thresholds: { currency: string; minAmount: number }[];
  categories: { category: ReportCategory; operationType: RegulatoryOperationType; totals: CurrencyTotal[] }[];
  operations: DailyOperation[];
}

export interface SuspicionOperation {
  reference: string;
  transactionId: string;
  type: RegulatoryOperationType;
  occurredAt: string;
  amount: number;
  currency: string;
  source: ReportParty;
  destination: ReportParty;
  /** the rules of the case's alerts that named this operation */
  alertRules: string[];
}

export interface SuspicionAlert {
  alertId: string;
  rule: string;
  configVersion: number;
  reason: string;
  raisedAt: string;
  /** the operations the alert names, every one of them in `operations` */
  transactionReferences: string[];
  /** how many operations were behind the hit: more than it names when `truncated` */
  operationsTotal: number;
  /** the alert named only its first operations and the one that raised it (docs/monitoring.md) */
  truncated: boolean;
}

/**
 * How much of an alert's operations the report lists, in words: "211 operations, 200 listed,
 * including the one that raised the alert" when it was cut, "3 operations, all listed" otherwise.
 */
export function alertListing(a: Pick<SuspicionAlert, 'transactionReferences' | 'operationsTotal' | 'truncated'>): string {
  const total = `${a.operationsTotal} operation${a.operationsTotal === 1 ? '' : 's'}`;
  if (!a.truncated) return `${total}, all listed`;
  return `${total}, ${a.transactionReferences.length} listed, including the one that raised the alert`;
}

export interface SuspicionReportContent {
  format: 'mm.regulatory.suspicion.v1';
  reference: string;
  generatedAt: string;
  generatedBy: { userId: string; role: string };
  case: { caseId: string; reference: string; openedAt: string; assigneeId: string | null };
  subject: {
    kind: CaseSubjectKind;
    userId: string;
    name: string | null;
    phone: string | null;
    role: string | null;
    kycTier: string | null;
    agentCode: string | null;
    businessName: string | null;
    accountIds: string[];
  };
  grounds: string[];
  narrative: string;
  alerts: SuspicionAlert[];
  operations: SuspicionOperation[];
  totals: CurrencyTotal[];
}

export type ReportContent = DailyReportContent | SuspicionReportContent;

/** Count and exact sum per currency, currencies in alphabetical order. */
export function totalsOf(items: { currency: string; amount: number }[]): CurrencyTotal[] {
  const sums = new Map<string, { count: number; amount: bigint }>();
  for (const item of items) {
    const t = sums.get(item.currency) ?? { count: 0, amount: 0n };
    t.count += 1;
    t.amount += BigInt(item.amount);
    sums.set(item.currency, t);
  }
  return [...sums.keys()]
    .sort()
    .map((currency) => ({ currency, count: sums.get(currency)!.count, amount: sums.get(currency)!.amount.toString() }));
}
