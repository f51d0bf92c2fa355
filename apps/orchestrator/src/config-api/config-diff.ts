/** One difference between two versions of a section: where, what it was, what it becomes (absent: null). */
export interface ConfigDifference {
  /** dotted path, array positions in brackets: `fees.TRANSFER.XAF[0].rateBps` */
  path: string;
  before: unknown;
  after: unknown;
}

/**
 * Every leaf that differs between two documents, in key order. Arrays are compared position by
 * position (a band added at the end is one new path); a value that changes kind (object to number)
 * is one difference at that path.
 */
export function diffDocuments(before: unknown, after: unknown, path = ''): ConfigDifference[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => diffDocuments(before[k], after[k], path ? `${path}.${k}` : k));
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const out: ConfigDifference[] = [];
    for (let i = 0; i < Math.max(before.length, after.length); i++) out.push(...diffDocuments(before[i], after[i], `${path}[${i}]`));
    return out;
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  return [{ path: path || '(document)', before: before ?? null, after: after ?? null }];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
