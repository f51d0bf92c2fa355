import { type ChildProcess, execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One row of the benchmark table (docs/performance.md "Results"). */
export interface BenchRow {
  workload: string;
  concurrency: number;
  committedPerSec: number;
  /** ratio to the named baseline, e.g. { B0: 0.61 } */
  ratios?: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
  /** serialization/lock retries per committed operation, when the workload has them */
  retriesPerOp?: number;
  errors: number;
  /** error counts by stable code */
  errorCodes?: Record<string, number>;
  note?: string;
}

export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return 0;
  const idx = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return Math.round(sortedMs[idx] * 100) / 100;
}

export interface LoopResult {
  ok: number;
  errors: number;
  errorCodes: Record<string, number>;
  latenciesMs: number[];
  elapsedSec: number;
  p50Ms: number;
  p99Ms: number;
  perSec: number;
}

/**
 * Closed loop: `concurrency` workers each call `op` back to back for `durationSec`. `op` returns
 * nothing on success or a stable error code on a business failure; a throw counts as `THROWN`.
 */
export async function closedLoop(
  concurrency: number,
  durationSec: number,
  op: (worker: number, iteration: number) => Promise<string | void>,
): Promise<LoopResult> {
  const latencies: number[] = [];
  const errorCodes: Record<string, number> = {};
  let ok = 0;
  let errors = 0;
  const start = performance.now();
  const deadline = start + durationSec * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = 0; performance.now() < deadline; i++) {
        const t0 = performance.now();
        let code: string | void;
        try {
          code = await op(worker, i);
        } catch (error) {
          code = `THROWN:${(error as Error).message.slice(0, 60)}`;
        }
        latencies.push(performance.now() - t0);
        if (code) {
          errors++;
          errorCodes[code] = (errorCodes[code] ?? 0) + 1;
        } else ok++;
      }
    }),
  );
  const elapsedSec = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    ok,
    errors,
    errorCodes,
    latenciesMs: latencies,
    elapsedSec,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    perSec: Math.round((ok / elapsedSec) * 10) / 10,
  };
}

export interface PgbenchResult {
  tps: number;
  /** transactions committed in the run (pgbench's "actually processed") */
  transactions: number;
  p50Ms?: number;
  latencyAvgMs: number;
  failed: number;
  retried: number;
  raw: string;
}

/** Runs pgbench (must be on PATH) and parses tps, average latency, failures and retries. */
export async function pgbench(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<PgbenchResult> {
  const { stdout } = await run('pgbench', args, { env, maxBuffer: 64 * 1024 * 1024 });
  const num = (re: RegExp) => Number(re.exec(stdout)?.[1] ?? 0);
  return {
    tps: num(/tps = ([\d.]+) \(without initial connection time\)/),
    transactions: num(/number of transactions actually processed: (\d+)/),
    latencyAvgMs: num(/latency average = ([\d.]+) ms/),
    failed: num(/number of failed transactions: (\d+)/),
    retried: num(/number of transactions retried: (\d+)/),
    raw: stdout,
  };
}

export function printTable(title: string, rows: BenchRow[]): void {
  const header = ['workload', 'conc', 'committed/s', 'ratio', 'p50 ms', 'p99 ms', 'retries/op', 'errors', 'note'];
  const body = rows.map((r) => [
    r.workload,
    String(r.concurrency),
    r.committedPerSec.toFixed(1),
    Object.entries(r.ratios ?? {})
      .map(([k, v]) => `${v.toFixed(2)}×${k}`)
      .join(' '),
    r.p50Ms.toFixed(1),
    r.p99Ms.toFixed(1),
    r.retriesPerOp === undefined ? '' : r.retriesPerOp.toFixed(3),
    r.errors === 0 ? '0' : `${r.errors} ${JSON.stringify(r.errorCodes ?? {})}`,
    r.note ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
  const out = [`\n${title}`, line(header), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...body.map(line)];
  process.stdout.write(out.join('\n') + '\n');
}

/** Writes the rows as JSON under bench/results/<name>-<timestamp>.json and returns the path. */
export function writeResults(name: string, rows: BenchRow[], extra: Record<string, unknown> = {}): string {
  const dir = join(process.cwd(), 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ name, at: new Date().toISOString(), rows, ...extra }, null, 2));
  return file;
}

/**
 * Stops a child process the bench started (a service, B2's server) and waits until it is gone: at
 * once if it already is (exited, or killed by a signal, when exitCode stays null), SIGKILL if it
 * has not stopped 15 s after SIGTERM.
 */
export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
  });
}
