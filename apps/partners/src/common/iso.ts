/** ISO 8601 UTC with milliseconds, or null. */
export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/** A `bigint` column read by pg as a string; the schema caps it at Number.MAX_SAFE_INTEGER. */
export const money = (v: string | number): number => {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new Error(`money value out of the safe integer range: ${v}`);
  return n;
};
