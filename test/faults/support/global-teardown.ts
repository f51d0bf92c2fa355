import { rmSync } from 'node:fs';
import { REPORT_DIR_ENV, formatTable, readRows } from './report';

/** The run's summary: one table, one row per fault case that reached its checks. */
export default function globalTeardown(): void {
  const dir = process.env[REPORT_DIR_ENV];
  if (!dir) return;
  const rows = readRows(dir);
  process.stdout.write(`\n\nFault-injection summary (${rows.length} case${rows.length === 1 ? '' : 's'})\n${formatTable(rows)}\n\n`);
  rmSync(dir, { recursive: true, force: true });
}
