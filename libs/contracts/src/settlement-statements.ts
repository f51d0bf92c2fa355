import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, Matches } from 'class-validator';
import { AppException, OptionalField } from '@mm/errors';
import {
  CALENDAR_DATE_PATTERN,
  PLATFORM_UTC_OFFSET,
  UTC_OFFSET_PATTERN,
  businessDayBounds,
  calendarDaysBetween,
  isCalendarDate,
} from './business-day';
import { type Currency, SUPPORTED_CURRENCIES } from './services';

/*
 * Settlement statements of a merchant's account (docs/statements.md). The ledger computes them from
 * its own entries (`LedgerAccountStatement`); the orchestrator (merchant and back office) and
 * partners (the partner API) add the partner order each payment paid and serve the same
 * `SettlementStatement`, JSON or CSV (settlement-statement-csv.ts). One home for the shape, the
 * period rule and the query, so that the three ways to get a statement cannot drift apart.
 */

/** What a line is, from the account holder's side (docs/statements.md "Lines"). */
export const SETTLEMENT_LINE_CATEGORIES = ['PAYMENT', 'DEPOSIT', 'FEE', 'PAYOUT', 'REVERSAL', 'CORRECTION', 'COMMISSION'] as const;
export type SettlementLineCategory = (typeof SETTLEMENT_LINE_CATEGORIES)[number];

export const LEDGER_TRANSACTION_TYPES = ['TRANSFER', 'CASH_IN', 'CASH_OUT', 'ADJUSTMENT'] as const;
export type LedgerTransactionType = (typeof LEDGER_TRANSACTION_TYPES)[number];

/** Statement days are business days (business-day.ts) unless the caller names another offset. */
export const STATEMENT_DEFAULT_UTC_OFFSET = PLATFORM_UTC_OFFSET;
/** The longest period one statement covers, in days. */
export const STATEMENT_MAX_DAYS = 31;
/** Transactions one paid-order lookup at partners may name. */
export const PAID_ORDER_LOOKUP_MAX = 1_000;

export const SETTLEMENT_STATEMENT_ROUTES = {
  /**
   * ledger: GET, query `from`, `to` (instants): 200 LedgerAccountStatement; never retried on a timeout
   * (docs/statements.md "Cost, and what keeps it away from payments")
   */
  ledgerAccount: (accountId: string) => `/v1/internal/accounts/${accountId}/settlement-statement`,
  /** orchestrator internal listener: GET, query `from`, `to` (instants), `currency`: 200 LedgerAccountStatement of the merchant's account */
  orchestratorMerchant: (merchantId: string) => `/api/internal/statements/merchants/${merchantId}`,
  /** partners: POST `{ transactionIds, integrationId? }`: 200 PaidOrdersAnswer */
  partnersPaidOrders: '/internal/partners/statements/paid-orders',
} as const;

/** One ledger entry on the account, as the ledger reports it. */
export interface LedgerStatementLine {
  entryId: string;
  transactionId: string;
  referenceId: string;
  /** when the entry was booked (ISO 8601 UTC, milliseconds) */
  bookedAt: string;
  transactionType: LedgerTransactionType;
  category: SettlementLineCategory;
  direction: 'CREDIT' | 'DEBIT';
  /** always positive; `direction` says which way */
  amount: number;
  /** the account's balance once this entry (and the ones listed before it) applied */
  balanceAfter: number;
  /** a REVERSAL: the reference of the transaction it undoes */
  reversalOf: string | null;
  /** the payment was made by scanning a QR (only those can have paid a partner order) */
  viaQr: boolean;
}

/**
 * An account over [from, to): the balance before, the entries applied in between in the order the
 * ledger applied them, the balance after (docs/statements.md "How it ties to the ledger").
 */
export interface LedgerAccountStatement {
  accountId: string;
  currency: Currency;
  from: string;
  to: string;
  openingBalance: number;
  closingBalance: number;
  /** `to` is older than the ledger's grace: no entry can still join or leave the lines */
  final: boolean;
  lines: LedgerStatementLine[];
}

/** partners' answer for one transaction that paid one of its orders. */
export interface PaidOrderRef {
  transactionId: string;
  orderId: string;
  externalReference: string | null;
}

/**
 * partners' answer to a paid-order lookup: the orders paid (only the asking integration's when it
 * names one), and the QR transactions whose ledger event partners has not applied yet, whose
 * order, if any, is not known yet.
 */
export interface PaidOrdersAnswer {
  orders: PaidOrderRef[];
  unapplied: string[];
}

/** The period a statement covers: whole days at `utcOffset`, and the instants they span. */
export interface StatementPeriod {
  fromDate: string;
  toDate: string;
  utcOffset: string;
  /**
   * first instant covered (ISO 8601 UTC), included: the start of `fromDate` at `utcOffset`, or on
   * the partner route the activation of the partner's connection when that is later
   */
  start: string;
  /** first instant after `toDate` at `utcOffset`, excluded */
  end: string;
}

// ---- OpenAPI views (the served shape) ----

export class StatementPeriodView implements StatementPeriod {
  @ApiProperty({ format: 'date', example: '2026-11-27', description: 'first day, inclusive' })
  fromDate: string;

  @ApiProperty({ format: 'date', example: '2026-11-27', description: 'last day, inclusive' })
  toDate: string;

  @ApiProperty({ example: '+01:00', description: 'the days are civil days at this offset from UTC' })
  utcOffset: string;

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-26T23:00:00.000Z',
    description:
      "first instant covered: the start of fromDate, or on the partner route the activation of the partner's connection when later",
  })
  start: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-27T23:00:00.000Z', description: 'first instant after the period (excluded)' })
  end: string;
}

export class SettlementOrderView {
  @ApiProperty({ format: 'uuid', example: '5d2c6f0e-3a8b-4c1d-9e7f-a0b1c2d3e4f5' })
  orderId: string;

  @ApiProperty({ type: String, nullable: true, example: 'TILL1-000123', description: "the partner's own reference, when it gave one" })
  externalReference: string | null;
}

export class SettlementStatementLineView {
  @ApiProperty({ format: 'uuid', example: '0f5e3c2a-9b8d-4e7f-a1c3-5d7e9f1b3a5c', description: 'the ledger entry this line is' })
  entryId: string;

  @ApiProperty({ format: 'uuid', example: '952d7761-bd47-4c7e-a37b-af9e58997e7b' })
  transactionId: string;

  @ApiProperty({ example: 'MMPTX2611270A1B2C3', description: 'the transaction reference (order.paid calls it transactionId)' })
  referenceId: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-27T09:14:03.512Z', description: 'when the entry was booked (UTC)' })
  bookedAt: string;

  @ApiProperty({ enum: LEDGER_TRANSACTION_TYPES, example: 'TRANSFER' })
  transactionType: LedgerTransactionType;

  @ApiProperty({
    enum: SETTLEMENT_LINE_CATEGORIES,
    example: 'PAYMENT',
    description:
      'PAYMENT money received by transfer or QR; DEPOSIT cash paid in at an agent; FEE a fee the account paid; PAYOUT money sent or cashed out; ' +
      'REVERSAL an operator undid a transaction; CORRECTION any other operator adjustment; COMMISSION an agent commission',
  })
  category: SettlementLineCategory;

  @ApiProperty({ enum: ['CREDIT', 'DEBIT'], example: 'CREDIT' })
  direction: 'CREDIT' | 'DEBIT';

  @ApiProperty({ type: 'integer', minimum: 1, example: 4_500, description: 'smallest currency unit, positive; direction says which way' })
  amount: number;

  @ApiProperty({ type: 'integer', example: 129_500, description: 'the balance after this line' })
  balanceAfter: number;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'a REVERSAL: the reference of the transaction it undoes' })
  reversalOf: string | null;

  @ApiProperty({ type: SettlementOrderView, nullable: true, description: 'the partner order this payment paid, if any' })
  order: SettlementOrderView | null;
}

export class SettlementCategoryTotalView {
  @ApiProperty({ enum: SETTLEMENT_LINE_CATEGORIES, example: 'PAYMENT' })
  category: SettlementLineCategory;

  @ApiProperty({ type: 'integer', example: 312 })
  count: number;

  @ApiProperty({ type: 'integer', example: 1_404_000, description: 'sum of the credit lines' })
  credits: number;

  @ApiProperty({ type: 'integer', example: 0, description: 'sum of the debit lines' })
  debits: number;
}

/** A merchant's statement: opening + totalCredits − totalDebits = closingBalance, and each line is a ledger entry. */
export class SettlementStatementView {
  @ApiProperty({ format: 'uuid', example: 'ff222ead-b1a4-4b64-9afc-1be04ae8a52a' })
  merchantId: string;

  @ApiProperty({ format: 'uuid', example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a', description: "the merchant's ledger account" })
  accountId: string;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: Currency;

  @ApiProperty({ type: StatementPeriodView })
  period: StatementPeriodView;

  @ApiProperty({ type: 'integer', example: 100_000, description: 'the balance before the first entry of the period' })
  openingBalance: number;

  @ApiProperty({
    type: 'integer',
    example: 1_485_500,
    description: 'the balance after the last entry of the period (now, for a period not over yet)',
  })
  closingBalance: number;

  @ApiProperty({
    example: true,
    description:
      'true once the period ended more than the ledger grace ago (5 minutes by default) and partners has applied every QR payment in it: ' +
      'the same request then always gets the same answer. false before: lines may still be added or gain their order',
  })
  final: boolean;

  @ApiProperty({ type: 'integer', example: 1_404_000 })
  totalCredits: number;

  @ApiProperty({ type: 'integer', example: 18_500 })
  totalDebits: number;

  @ApiProperty({ type: [SettlementCategoryTotalView], description: 'one per category, always all of them, in the order of the enum' })
  totals: SettlementCategoryTotalView[];

  @ApiProperty({
    type: [SettlementStatementLineView],
    description: 'in the order the ledger applied them to the account (its chain order)',
  })
  lines: SettlementStatementLineView[];
}

export type SettlementStatement = SettlementStatementView;
export type SettlementStatementLine = SettlementStatementLineView;

// ---- the public query ----

const DAY = CALENDAR_DATE_PATTERN;
const OFFSET = UTC_OFFSET_PATTERN;
const PERIOD_CODE = { context: { code: 'SETTLEMENT_PERIOD_INVALID' } };

function DayField(description: string, example: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ format: 'date', pattern: DAY.source, example, description }),
    OptionalField(),
    Matches(DAY, PERIOD_CODE),
  );
}

/** `?date=` or `?from=&to=` (days, inclusive), `utcOffset`, `currency`, `format`: the same on every statement route. */
export class SettlementStatementQuery {
  @DayField('one day (instead of from and to)', '2026-11-27')
  date?: string;

  @DayField(`first day, with to; at most ${STATEMENT_MAX_DAYS} days in all`, '2026-11-01')
  from?: string;

  @DayField('last day, inclusive, with from', '2026-11-30')
  to?: string;

  @ApiPropertyOptional({
    pattern: OFFSET.source,
    default: STATEMENT_DEFAULT_UTC_OFFSET,
    example: '+01:00',
    description: 'where the days begin and end: an offset from UTC (West Africa Time, +01:00, when absent)',
  })
  @OptionalField()
  @Matches(OFFSET, PERIOD_CODE)
  utcOffset?: string;

  @ApiPropertyOptional({ enum: SUPPORTED_CURRENCIES, default: 'XAF', example: 'XAF', description: "which of the merchant's accounts" })
  @OptionalField()
  @IsIn(SUPPORTED_CURRENCIES, { context: { code: 'UNSUPPORTED_CURRENCY' } })
  currency?: Currency;

  @ApiPropertyOptional({ enum: ['json', 'csv'], default: 'json', example: 'csv', description: 'csv: the columns of docs/statements.md' })
  @OptionalField()
  @IsIn(['json', 'csv'], { context: { code: 'SETTLEMENT_FORMAT_INVALID' } })
  format?: 'json' | 'csv';
}

function invalid(message: string): AppException {
  return new AppException('SETTLEMENT_PERIOD_INVALID', message);
}

/**
 * The period a query asks for (its fields already well-formed): one `date`, or `from` and `to`
 * (inclusive, at most STATEMENT_MAX_DAYS days), at `utcOffset`. A period that has not begun is
 * refused; one not over yet is answered up to now. How far back a period may start is the
 * ledger's bound (SETTLEMENT_PERIOD_TOO_OLD), since the cost it limits is the ledger's.
 */
export function statementPeriod(
  query: Pick<SettlementStatementQuery, 'date' | 'from' | 'to' | 'utcOffset'>,
  now = Date.now(),
): StatementPeriod {
  const utcOffset = query.utcOffset ?? STATEMENT_DEFAULT_UTC_OFFSET;
  if (query.date !== undefined && (query.from !== undefined || query.to !== undefined)) {
    throw invalid('Give either date, or from and to, not both');
  }
  const fromDate = query.date ?? query.from;
  const toDate = query.date ?? query.to;
  if (fromDate === undefined || toDate === undefined) throw invalid('Give date, or both from and to');
  if (!isCalendarDate(fromDate) || !isCalendarDate(toDate)) throw invalid('from, to and date must be calendar days (YYYY-MM-DD)');
  const days = calendarDaysBetween(fromDate, toDate) + 1;
  if (days < 1) throw invalid('to is before from');
  if (days > STATEMENT_MAX_DAYS) throw invalid(`A statement covers at most ${STATEMENT_MAX_DAYS} days; this period has ${days}`);
  const start = businessDayBounds(fromDate, utcOffset).from;
  if (Date.parse(start) > now) throw invalid('The period has not begun yet');
  return { fromDate, toDate, utcOffset, start, end: businessDayBounds(toDate, utcOffset).to };
}
