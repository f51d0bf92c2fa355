import { PLATFORM_UTC_OFFSET, businessDayOf, isCalendarDate } from '@mm/contracts';
import { AppException } from '@mm/errors';

/** A bank movement as the statement states it, from the trust account's side: CREDIT money in, DEBIT money out. */
export type BankDirection = 'CREDIT' | 'DEBIT';

export interface ParsedLine {
  /** 1-based position in the statement */
  lineNo: number;
  direction: BankDirection;
  /** smallest unit, > 0 */
  amount: number;
  /** YYYY-MM-DD */
  bookingDate: string;
  valueDate: string | null;
  /** the bank's own reference of the entry (NtryRef, else AcctSvcrRef), or the CSV's reference column */
  reference: string | null;
  /** free remittance text (RmtInf/Ustrd, AddtlNtryInf): where a payer writes the platform's reference */
  remittance: string | null;
}

export interface ParsedBalance {
  /** signed, smallest unit: a debit balance is negative */
  amount: number;
  date: string;
}

/** A statement read from either format, before any check against the ledger. */
export interface ParsedStatement {
  format: 'CAMT053' | 'CSV';
  /** the bank's statement id (camt.053 Stmt/Id) */
  statementId: string;
  /** IBAN, or the bank's other account id, upper-cased without spaces */
  account: string;
  currency: string;
  opening: ParsedBalance;
  closing: ParsedBalance;
  lines: ParsedLine[];
}

/** The one refusal of a statement that cannot be read; `where` says which part. */
export function malformed(where: string, problem: string): AppException {
  return new AppException('BANK_STATEMENT_MALFORMED', `${where}: ${problem}`, {
    errors: [{ field: 'content', code: 'BANK_STATEMENT_MALFORMED', message: `${where}: ${problem}` }],
  });
}

/**
 * A calendar date written YYYY-MM-DD. A date-time keeps the bank's local date as written, unless it
 * names its zone (`Z`, `+00:00`): then it is the day of that instant at the trust account's offset
 * (West Africa Time unless configured), the day the bank books it on (docs/reconciliation.md,
 * "Business days").
 */
export function parseDate(value: string, where: string, utcOffset: string = PLATFORM_UTC_OFFSET): string {
  const text = value.trim();
  const dateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/i.exec(text);
  if (dateTime && (!isCalendarDate(text.slice(0, 10)) || Number.isNaN(Date.parse(text)))) {
    throw malformed(where, `"${value}" is not a date-time`);
  }
  if (dateTime?.[3]) return businessDayOf(text, utcOffset);
  const date = dateTime ? text.slice(0, 10) : text;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw malformed(where, `"${value}" is not a date (YYYY-MM-DD)`);
  if (!isCalendarDate(date)) throw malformed(where, `"${value}" is not a calendar date`);
  return date;
}

/**
 * An amount in XAF or XOF, which have no minor unit: digits, optionally followed by a fractional part
 * of zeros only ("150000", "150000.00"). Anything else (a sign, a comma, a real fraction, more than
 * 2^53 − 1) is refused rather than rounded.
 */
export function parseAmount(value: string, where: string): number {
  const m = /^(\d{1,16})(?:\.(0{1,5}))?$/.exec(value.trim());
  if (!m) throw malformed(where, `"${value}" is not an amount in a currency without minor unit (digits, e.g. 150000 or 150000.00)`);
  const n = Number(m[1]);
  if (!Number.isSafeInteger(n)) throw malformed(where, `${value} exceeds 2^53 − 1`);
  return n;
}

export function parseDirection(value: string, where: string): BankDirection {
  const v = value.trim();
  if (v === 'CRDT' || v === 'CREDIT') return 'CREDIT';
  if (v === 'DBIT' || v === 'DEBIT') return 'DEBIT';
  throw malformed(where, `"${value}" is not a credit/debit indicator (CRDT/DBIT, or CREDIT/DEBIT in CSV)`);
}

/** The checks both formats share: one currency, balances that add up, lines dated within the statement. */
export function checkStatement(s: ParsedStatement): ParsedStatement {
  if (!/^[A-Z]{3}$/.test(s.currency)) throw malformed('currency', `"${s.currency}" is not a currency code`);
  if (!s.statementId || s.statementId.length > 140) throw malformed('statement id', 'missing or longer than 140 characters');
  if (!/^[A-Z0-9]{5,34}$/.test(s.account)) throw malformed('account', `"${s.account}" is not an IBAN or account number`);
  if (s.closing.date < s.opening.date) throw malformed('balances', 'the closing balance is dated before the opening balance');
  let total = BigInt(s.opening.amount);
  for (const line of s.lines) {
    if (line.amount <= 0) throw malformed(`entry ${line.lineNo}`, 'the amount must be positive');
    if (line.bookingDate < s.opening.date || line.bookingDate > s.closing.date) {
      throw malformed(
        `entry ${line.lineNo}`,
        `booked on ${line.bookingDate}, outside the statement (${s.opening.date} to ${s.closing.date})`,
      );
    }
    total += line.direction === 'CREDIT' ? BigInt(line.amount) : -BigInt(line.amount);
  }
  if (total !== BigInt(s.closing.amount)) {
    throw malformed(
      'balances',
      `opening ${s.opening.amount} plus the entries (${total - BigInt(s.opening.amount)}) is ${total}, not the closing balance ${s.closing.amount}`,
    );
  }
  return s;
}

/** Text as stored: trimmed, inner whitespace runs as one space, empty as null, at most `max` characters. */
export function cleanText(value: string | undefined | null, max = 500): string | null {
  if (value === undefined || value === null) return null;
  const text = value.replace(/\s+/g, ' ').trim();
  return text ? text.slice(0, max) : null;
}
