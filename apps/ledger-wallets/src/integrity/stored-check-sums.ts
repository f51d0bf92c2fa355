import type { AccountGap, CurrencyTotal } from './integrity-check.service';

/** Some fields of T as a stored check may hold them: a decimal string, or a JSON number in an older check. */
type Stored<T, K extends keyof T> = Omit<T, K> & { [P in K]: string | number };

export type StoredCurrencyTotal = Stored<CurrencyTotal, 'storedTotal' | 'ledgerTotal' | 'gap'>;
export type StoredAccountGap = Stored<AccountGap, 'recomputed' | 'gap'>;

/*
 * A stored check's sums in the shape a check has today (decimal strings). Checks recorded before
 * sums were strings hold JSON numbers; those were always within ±(2^53 − 1) (a larger sum was
 * refused then, never stored), so String() writes them exactly.
 */
const decimal = (sum: string | number): string => (typeof sum === 'number' ? String(sum) : sum);

export function storedCurrencyTotals(totals: StoredCurrencyTotal[]): CurrencyTotal[] {
  return totals.map((t) => ({ ...t, storedTotal: decimal(t.storedTotal), ledgerTotal: decimal(t.ledgerTotal), gap: decimal(t.gap) }));
}

export function storedAccountGaps(gaps: StoredAccountGap[]): AccountGap[] {
  return gaps.map((g) => ({ ...g, recomputed: decimal(g.recomputed), gap: decimal(g.gap) }));
}
