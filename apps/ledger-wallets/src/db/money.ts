import { AppException } from '@mm/errors';

/**
 * bigint columns arrive from pg as strings: map them to safe JS integers (CONVENTIONS "Data").
 * The database keeps every money column within ±(2^53 − 1) (CHK_*_money_range), so a stored value
 * always fits; a computed sum (a report's totals) that does not is refused with a stable code
 * rather than rounded.
 */
export function toMoney(value: string | number | bigint | null | undefined): number {
  if (value === null || value === undefined) return 0;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n)) throw outOfRange(`money value ${String(value)}`);
  return n;
}

/** The exact sum of money amounts; refused (422 AMOUNT_OUT_OF_RANGE) when it leaves the safe integer range. */
export function safeSum(...amounts: number[]): number {
  let total = 0n;
  for (const a of amounts) {
    if (!Number.isSafeInteger(a)) throw outOfRange(`amount ${a}`);
    total += BigInt(a);
  }
  if (total > BigInt(Number.MAX_SAFE_INTEGER) || total < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw outOfRange(`the sum ${amounts.join(' + ')}`);
  }
  return Number(total);
}

/** a + b ≥ c, compared exactly (the operands may each be up to 2^53 − 1, their sum beyond it). */
export function sumCovers(a: number | string, b: number | string, required: number): boolean {
  return BigInt(a) + BigInt(b) >= BigInt(required);
}

export function outOfRange(what: string): AppException {
  return new AppException('AMOUNT_OUT_OF_RANGE', `${what} exceeds 2^53 − 1 (9007199254740991); refused rather than rounded`);
}

export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
