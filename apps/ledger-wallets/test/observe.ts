/*
 * Reading what the ledger reports about itself, for tests and fault cases: its Prometheus metrics
 * and the counts of its Server-Timing header. No app import: fault cases load it too.
 */

/**
 * The sum of every series of a metric (labelled or not; with `labels`, the series carrying them) on
 * `${baseUrl}/metrics`. A metric the
 * process does not export at all is an error, not a 0: a renamed metric must fail the test.
 */
export async function metricSum(baseUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  if (!new RegExp(`^# TYPE ${name} `, 'm').test(text)) throw new Error(`the process does not export ${name}`);
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`, 'gm'))) {
    const have = (m[1] ?? '').slice(1, -1).split(',');
    if (wanted.every((w) => have.includes(w))) sum += Number(m[2]);
  }
  return sum;
}

/** Every `name;desc=n` of a Server-Timing header (e.g. `group`: how many confirms shared the transaction). */
export function timingNotes(header: string | null | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of (header ?? '').matchAll(/([\w-]+);desc=(\d+)/g)) out[m[1]] = Number(m[2]);
  return out;
}
