import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPORT_DIR_ENV } from './report';

/** One report folder per run; the test workers inherit its path. */
export default function globalSetup(): void {
  process.env[REPORT_DIR_ENV] = mkdtempSync(join(tmpdir(), 'mm-faults-report-'));
}
