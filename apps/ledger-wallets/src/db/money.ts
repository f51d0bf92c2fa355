/** bigint columns arrive from pg as strings: map them to safe JS integers (CONVENTIONS "Data"). */
export function toMoney(value: string | number | null | undefined): number {
  if (value === null || value === undefined) return 0;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`money value out of the safe integer range: ${String(value)}`);
  return n;
}

export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
