import { calendarDaysBetween } from '@mm/contracts';
import type { BankDirection } from './parsed-statement';

/** A bank line as the matcher sees it. */
export interface BankLine {
  lineNo: number;
  direction: BankDirection;
  amount: number;
  bookingDate: string;
  valueDate: string | null;
  reference: string | null;
  remittance: string | null;
}

/** A platform float movement: one ledger transaction against the issuance account, as the bank should see it. */
export interface FloatMovement {
  transactionId: string;
  referenceId: string;
  completedAt: string;
  /** the business day (West Africa Time) of `completedAt`: the day compared with bank booking dates */
  businessDay: string;
  direction: BankDirection;
  amount: number;
  correctionId: string | null;
  accountId: string;
  accountType: string;
  reversalOf: string | null;
}

export type MatchRule = 'REFERENCE' | 'DATE' | 'GROUPED_LEDGER' | 'GROUPED_BANK' | 'REVERSED';

export interface Match {
  rule: MatchRule;
  bankLines: BankLine[];
  movements: FloatMovement[];
}

export interface MatchResult {
  matches: Match[];
  /** corrections that resolved an earlier alert and are not paired with their reversal: not bank movements */
  setAside: FloatMovement[];
  unmatchedBankLines: BankLine[];
  /** only movements of the statement's own days: one just outside them may belong to the next statement */
  unmatchedMovements: FloatMovement[];
}

// Days are the platform's business days: a bank in West Africa Time books a movement completed at
// 23:30 UTC on the next day, and so does the matcher (docs/reconciliation.md, "Business days").
const dayOf = (m: FloatMovement): string => m.businessDay;
const daysApart = (a: string, b: string): number => Math.abs(calendarDaysBetween(a, b));

/**
 * The matching rules of docs/reconciliation.md, applied in this order, each to what the previous
 * ones left:
 *
 * 1. REVERSED: a movement and its reversal, both in view, cancel out (no bank line). Then the
 *    corrections that resolved an earlier alert (`resolutions`) are set aside: they fixed the
 *    ledger, no money moved at the bank for them.
 * 2. REFERENCE: one line, one movement, same direction and amount, the movement's reference or
 *    correction id written in the line's reference or remittance text (dates not compared).
 * 3. DATE: one line, one movement, same direction and amount, dated at most `toleranceDays`
 *    business days apart; the closest date wins, then the earliest movement.
 * 4. GROUPED_LEDGER: every still unmatched movement of one business day and direction (two or more) summing
 *    to one line within the tolerance.
 * 5. GROUPED_BANK: every still unmatched line of one booking day and direction (two or more) summing
 *    to one movement within the tolerance.
 *
 * Groups are whole days, not arbitrary subsets: a subset search would be slow and could pair
 * amounts by coincidence. `inPeriod` says which movements must be explained by this statement.
 */
export function matchStatement(
  lines: readonly BankLine[],
  movements: readonly FloatMovement[],
  toleranceDays: number,
  inPeriod: (m: FloatMovement) => boolean,
  resolutions: ReadonlySet<string> = new Set(),
): MatchResult {
  const matches: Match[] = [];
  const lineLeft = new Set(lines);
  const moveLeft = new Set(movements);

  const byId = new Map(movements.map((m) => [m.transactionId, m]));
  for (const m of movements) {
    const original = m.reversalOf ? byId.get(m.reversalOf) : undefined;
    if (original && moveLeft.has(original) && moveLeft.has(m)) {
      moveLeft.delete(original);
      moveLeft.delete(m);
      matches.push({ rule: 'REVERSED', bankLines: [], movements: [original, m] });
    }
  }
  const setAside = movements.filter((m) => moveLeft.has(m) && resolutions.has(m.transactionId));
  setAside.forEach((m) => moveLeft.delete(m));

  const closest = (line: BankLine, candidates: FloatMovement[]): FloatMovement | undefined =>
    candidates.sort(
      (a, b) => daysApart(dayOf(a), line.bookingDate) - daysApart(dayOf(b), line.bookingDate) || a.completedAt.localeCompare(b.completedAt),
    )[0];
  const sameKind = (line: BankLine) => [...moveLeft].filter((m) => m.direction === line.direction && m.amount === line.amount);
  const pair = (rule: MatchRule, line: BankLine, movement: FloatMovement) => {
    lineLeft.delete(line);
    moveLeft.delete(movement);
    matches.push({ rule, bankLines: [line], movements: [movement] });
  };

  for (const line of lines) {
    const text = `${line.reference ?? ''} ${line.remittance ?? ''}`.toUpperCase();
    const found = closest(
      line,
      sameKind(line).filter(
        (m) => text.includes(m.referenceId.toUpperCase()) || (m.correctionId !== null && text.includes(m.correctionId.toUpperCase())),
      ),
    );
    if (found) pair('REFERENCE', line, found);
  }
  for (const line of [...lineLeft]) {
    const found = closest(
      line,
      sameKind(line).filter((m) => daysApart(dayOf(m), line.bookingDate) <= toleranceDays),
    );
    if (found) pair('DATE', line, found);
  }

  for (const line of [...lineLeft]) {
    const days = groupBy(
      [...moveLeft].filter((m) => m.direction === line.direction),
      dayOf,
    );
    for (const [day, group] of [...days].sort(([a], [b]) => daysApart(a, line.bookingDate) - daysApart(b, line.bookingDate))) {
      if (group.length < 2 || daysApart(day, line.bookingDate) > toleranceDays || sum(group) !== line.amount) continue;
      lineLeft.delete(line);
      group.forEach((m) => moveLeft.delete(m));
      matches.push({ rule: 'GROUPED_LEDGER', bankLines: [line], movements: group });
      break;
    }
  }
  for (const movement of [...moveLeft]) {
    const days = groupBy(
      [...lineLeft].filter((l) => l.direction === movement.direction),
      (l) => l.bookingDate,
    );
    for (const [day, group] of [...days].sort(([a], [b]) => daysApart(a, dayOf(movement)) - daysApart(b, dayOf(movement)))) {
      if (group.length < 2 || daysApart(day, dayOf(movement)) > toleranceDays || sum(group) !== movement.amount) continue;
      moveLeft.delete(movement);
      group.forEach((l) => lineLeft.delete(l));
      matches.push({ rule: 'GROUPED_BANK', bankLines: group, movements: [movement] });
      break;
    }
  }

  return {
    matches,
    setAside,
    unmatchedBankLines: lines.filter((l) => lineLeft.has(l)),
    unmatchedMovements: movements.filter((m) => moveLeft.has(m) && inPeriod(m)),
  };
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

const sum = (items: { amount: number }[]): number => items.reduce((total, i) => total + i.amount, 0);
