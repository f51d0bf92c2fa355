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

export type MatchRule = 'CORRECTED' | 'REFERENCE' | 'DATE' | 'GROUPED_LEDGER' | 'GROUPED_BANK' | 'REVERSED';

/** What officers' resolutions say about some movements (read from the alerts' CORRECTED decisions). */
export interface Resolutions {
  /** a correction (its ledger transaction) that resolved the alert of one of this statement's bank lines → that line's number */
  lineFixes: ReadonlyMap<string, number>;
  /** corrections that resolved a movement or gap alert: they fixed the ledger, no money moved at the bank for them */
  ledgerFixes: ReadonlySet<string>;
}

const NO_RESOLUTIONS: Resolutions = { lineFixes: new Map(), ledgerFixes: new Set() };

export interface Match {
  rule: MatchRule;
  bankLines: BankLine[];
  movements: FloatMovement[];
}

export interface MatchResult {
  matches: Match[];
  /** corrections that resolved a movement or gap alert and are not paired with the movement they reverse: not bank movements */
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
 * 1. CORRECTED: a correction that resolved the alert of one of this statement's bank lines is that
 *    line's movement (the officer made it for the line, four eyes approved it).
 * 2. The corrections that resolved a movement or gap alert (`ledgerFixes`): one that reverses a
 *    movement in view cancels out with it (REVERSED); the others are set aside.
 * 3. REFERENCE: one line, one movement, same direction and amount, the movement's reference or
 *    correction id written in the line's reference or remittance text (dates not compared).
 * 4. DATE: one line, one movement, same direction and amount, dated at most `toleranceDays`
 *    business days apart: as many pairs as possible, then the smallest total distance (`pairByDate`).
 * 5. REVERSED: a movement and its reversal both still unmatched cancel out (no bank line). After the
 *    one-to-one rules, so a funding and its refund that both went through the bank match their lines.
 * 6. GROUPED_LEDGER: every still unmatched movement of one business day and direction (two or more) summing
 *    to one line within the tolerance.
 * 7. GROUPED_BANK: every still unmatched line of one booking day and direction (two or more) summing
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
  resolutions: Resolutions = NO_RESOLUTIONS,
): MatchResult {
  const matches: Match[] = [];
  const lineLeft = new Set(lines);
  const moveLeft = new Set(movements);
  const byId = new Map(movements.map((m) => [m.transactionId, m]));
  const lineByNo = new Map(lines.map((l) => [l.lineNo, l]));
  const pair = (rule: MatchRule, line: BankLine, movement: FloatMovement) => {
    lineLeft.delete(line);
    moveLeft.delete(movement);
    matches.push({ rule, bankLines: [line], movements: [movement] });
  };
  const cancel = (original: FloatMovement, reversal: FloatMovement) => {
    moveLeft.delete(original);
    moveLeft.delete(reversal);
    matches.push({ rule: 'REVERSED', bankLines: [], movements: [original, reversal] });
  };

  for (const m of movements) {
    const line = lineByNo.get(resolutions.lineFixes.get(m.transactionId) ?? 0);
    if (line && lineLeft.has(line) && moveLeft.has(m)) pair('CORRECTED', line, m);
  }
  for (const m of movements) {
    if (!resolutions.ledgerFixes.has(m.transactionId) || !moveLeft.has(m)) continue;
    const original = m.reversalOf ? byId.get(m.reversalOf) : undefined;
    if (original && moveLeft.has(original)) cancel(original, m);
  }
  const setAside = movements.filter((m) => moveLeft.has(m) && resolutions.ledgerFixes.has(m.transactionId));
  setAside.forEach((m) => moveLeft.delete(m));

  const sameKind = (line: BankLine) => [...moveLeft].filter((m) => m.direction === line.direction && m.amount === line.amount);
  for (const line of lines) {
    const text = `${line.reference ?? ''} ${line.remittance ?? ''}`.toUpperCase();
    const [found] = sameKind(line)
      .filter((m) => text.includes(m.referenceId.toUpperCase()) || (m.correctionId !== null && text.includes(m.correctionId.toUpperCase())))
      .sort(
        (a, b) =>
          daysApart(dayOf(a), line.bookingDate) - daysApart(dayOf(b), line.bookingDate) || a.completedAt.localeCompare(b.completedAt),
      );
    if (found) pair('REFERENCE', line, found);
  }

  const kinds = groupBy([...lineLeft], (l) => `${l.direction} ${l.amount}`);
  const moveKinds = groupBy([...moveLeft], (m) => `${m.direction} ${m.amount}`);
  for (const [kind, kindLines] of kinds) {
    for (const [line, movement] of pairByDate(kindLines, moveKinds.get(kind) ?? [], toleranceDays)) pair('DATE', line, movement);
  }

  for (const m of movements) {
    const original = m.reversalOf ? byId.get(m.reversalOf) : undefined;
    if (original && moveLeft.has(original) && moveLeft.has(m)) cancel(original, m);
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

/**
 * One-to-one pairs of lines and movements of the same direction and amount, at most `tolerance`
 * days apart: the most pairs possible, and among those the smallest sum of distances. Both sides
 * sorted by date, some best pairing never crosses (swapping two crossed pairs never lengthens
 * either), so a table over the two sorted lists finds it in lines × movements steps. A greedy
 * "closest first" would pair lines of days 12 and 10 with movements of days 11 and 13 as 12–11 and
 * leave 10 and 13 apart; this pairs 10–11 and 12–13.
 */
export function pairByDate(
  lines: readonly BankLine[],
  movements: readonly FloatMovement[],
  tolerance: number,
): [BankLine, FloatMovement][] {
  const ls = [...lines].sort((a, b) => a.bookingDate.localeCompare(b.bookingDate) || a.lineNo - b.lineNo);
  const ms = [...movements].sort(
    (a, b) =>
      dayOf(a).localeCompare(dayOf(b)) || a.completedAt.localeCompare(b.completedAt) || a.transactionId.localeCompare(b.transactionId),
  );
  // best[i][j]: the best pairing of the first i lines with the first j movements, as [pairs, total distance]
  const best: [number, number][][] = Array.from({ length: ls.length + 1 }, () => Array.from({ length: ms.length + 1 }, () => [0, 0]));
  const better = (a: [number, number], b: [number, number]) => a[0] > b[0] || (a[0] === b[0] && a[1] < b[1]);
  const gap = (i: number, j: number) => daysApart(ls[i - 1].bookingDate, dayOf(ms[j - 1]));
  const paired = (i: number, j: number): [number, number] | null =>
    gap(i, j) <= tolerance ? [best[i - 1][j - 1][0] + 1, best[i - 1][j - 1][1] + gap(i, j)] : null;
  for (let i = 1; i <= ls.length; i++) {
    for (let j = 1; j <= ms.length; j++) {
      let b = better(best[i][j - 1], best[i - 1][j]) ? best[i][j - 1] : best[i - 1][j];
      const p = paired(i, j);
      if (p && better(p, b)) b = p;
      best[i][j] = b;
    }
  }
  const pairs: [BankLine, FloatMovement][] = [];
  for (let i = ls.length, j = ms.length; i > 0 && j > 0;) {
    const p = paired(i, j);
    const here = best[i][j];
    if (p && p[0] === here[0] && p[1] === here[1]) {
      pairs.push([ls[i - 1], ms[j - 1]]);
      i--;
      j--;
    } else if (best[i - 1][j][0] === here[0] && best[i - 1][j][1] === here[1]) i--;
    else j--;
  }
  return pairs.reverse();
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

const sum = (items: { amount: number }[]): number => items.reduce((total, i) => total + i.amount, 0);
