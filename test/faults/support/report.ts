/**
 * The numbers a fault run produces: one row per fault case, printed by the case and gathered into
 * one table at the end of the run (each test file writes its row to the run's report folder, which
 * the global setup created; the global teardown prints them together).
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FaultRow {
  case: string;
  /** what was broken, e.g. "kill -9 ledger-wallets ×1" */
  faults: string;
  /** HTTP requests to the services and jobs enqueued, retries included */
  requests: number;
  /** operations that took effect: transfers executed, webhooks received */
  committed: number;
  /** answers that were an error with a stable code from the catalogue */
  failedStable: number;
  /** requests that got no answer at all (connection refused or cut while a service was down) */
  noAnswer: number;
  /** operations acknowledged or enqueued that never took effect (must be 0) */
  lost: number;
  /** operations that took effect more than once (must be 0) */
  duplicated: number;
  notes: string;
}

export const REPORT_DIR_ENV = 'MM_FAULTS_REPORT_DIR';

const COLUMNS: [keyof FaultRow, string][] = [
  ['case', 'case'],
  ['faults', 'faults injected'],
  ['requests', 'requests sent'],
  ['committed', 'committed'],
  ['failedStable', 'failed (stable code)'],
  ['noAnswer', 'no answer'],
  ['lost', 'lost'],
  ['duplicated', 'duplicated executions'],
  ['notes', 'notes'],
];

export function formatTable(rows: FaultRow[]): string {
  const cells = [COLUMNS.map(([, title]) => title), ...rows.map((r) => COLUMNS.map(([key]) => String(r[key])))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((c) => c[i].length)));
  const line = (c: string[]) => `| ${c.map((v, i) => (i >= 2 && i <= 7 ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i >= 2 && i <= 7 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(cells[0]), rule, ...cells.slice(1).map(line)].join('\n');
}

/** Prints the row (Jest may buffer it) and leaves it for the run's summary. */
export function reportRow(row: FaultRow): void {
  process.stdout.write(`\nfault case summary\n${formatTable([row])}\n`);
  const dir = process.env[REPORT_DIR_ENV];
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${row.case.replace(/[^a-z0-9]+/gi, '-')}.json`), JSON.stringify(row));
}

export function readRows(dir: string): FaultRow[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as FaultRow);
  } catch {
    return [];
  }
}
