/**
 * The most a PERSON_360 evidence keeps of a 360 view, as UTF-8 JSON. A customer's view is a few
 * kilobytes (at most 20 recent operations, 50 partner connections), but holds and sessions have
 * no cap of their own, and a case is read whole: the bound keeps one piece of evidence from
 * weighing on every read of its case.
 */
export const MAX_SNAPSHOT_BYTES = 64 * 1024;

export interface BoundedSnapshot {
  snapshot: Record<string, unknown>;
  /** each list that was shortened (`holds.items`) with how many items the view had; empty when nothing was cut */
  cut: Record<string, number>;
  bytes: number;
}

const sizeOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** The non-empty list holding the most bytes, anywhere in the tree, with its dotted path. */
function heaviestList(node: unknown, path: string): { path: string; list: unknown[]; bytes: number } | null {
  if (node === null || typeof node !== 'object') return null;
  let best: { path: string; list: unknown[]; bytes: number } | null = null;
  const consider = (found: { path: string; list: unknown[]; bytes: number } | null) => {
    if (found && (!best || found.bytes > best.bytes)) best = found;
  };
  if (Array.isArray(node)) {
    if (node.length > 0) consider({ path, list: node, bytes: sizeOf(node) });
    node.forEach((item, i) => consider(heaviestList(item, `${path}[${i}]`)));
    return best;
  }
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    consider(heaviestList(value, path ? `${path}.${key}` : key));
  }
  return best;
}

/**
 * A copy of `view` that fits in `maxBytes`: while it is too large, the heaviest list is cut to
 * its first half (the view's lists are newest first, so the latest items stay), and `cut` says
 * which lists lost items and how many they had. If no list is left to cut and it is still too
 * large, only the top-level scalars and the identity are kept (`cut['*']`: the full size).
 */
export function boundSnapshot(view: object, maxBytes = MAX_SNAPSHOT_BYTES): BoundedSnapshot {
  const copy = JSON.parse(JSON.stringify(view)) as Record<string, unknown>;
  const cut: Record<string, number> = {};
  let bytes = sizeOf(copy);
  while (bytes > maxBytes) {
    const heaviest = heaviestList(copy, '');
    if (!heaviest) break;
    cut[heaviest.path] ??= heaviest.list.length;
    heaviest.list.length = Math.floor(heaviest.list.length / 2);
    bytes = sizeOf(copy);
  }
  if (bytes <= maxBytes) return { snapshot: copy, cut, bytes };

  const full = sizeOf(view);
  const minimal: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(copy)) {
    if (value === null || typeof value !== 'object' || key === 'identity') minimal[key] = value;
  }
  if (sizeOf(minimal) > maxBytes) return { snapshot: {}, cut: { '*': full }, bytes: 2 };
  return { snapshot: minimal, cut: { '*': full }, bytes: sizeOf(minimal) };
}
