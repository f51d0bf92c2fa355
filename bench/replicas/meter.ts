/**
 * Prices another benchmark's workloads per operation without touching its code:
 *
 *   node dist/bench/replicas/meter.js [--count label=SQL]… -- <command…>
 *   e.g. node dist/bench/replicas/meter.js --count "orders=SELECT count(*) FROM partners.orders" -- node dist/bench/partners/run.js
 *
 * It runs the command, and every 500 ms reads the CPU time of each process under it (named after
 * the service whose main.js it runs, `receiver` for a webhook receiver, `bench` for the load
 * generator), of the PostgreSQL backends serving a bench database (`mm_bench_*`, by the pools'
 * application_name) and of PostgreSQL's own background processes; write transactions, WAL bytes
 * and WAL flushes (server-wide: run it on a quiet machine), commits of the bench databases; and
 * each `--count` query, run in the newest bench database (a count of rows the workload creates).
 *
 * Two ways of cutting the run into workloads, both in the report: between consecutive lines of the
 * command's output (a bench logs one line per finished loop), and per counter into the stretches
 * in which it moves (orders paid: the payment path, whatever else moves with it). Each part lists
 * its totals and, per counter that moved, the CPU ms of every process, write transactions, commits,
 * WAL and rows written per schema, per unit. Writes bench/results/meter-<name>-<timestamp>.json.
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { writeResults } from '../lib/bench';
import { procCpuMs } from './process-meter';

const ADMIN = process.env.BENCH_ADMIN_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PERIOD_MS = 500;

interface Sample {
  at: number;
  cpu: Record<string, number>;
  counters: Record<string, number>;
  writeTransactions: number;
  commits: number;
  walBytes: number;
  walSyncs: number;
  /** rows inserted, updated or deleted so far per schema of the bench database (table statistics, up to a second late) */
  rows: Record<string, number>;
}

function parseArgs(argv: string[]): { counters: Array<[string, string]>; command: string[] } {
  const split = argv.indexOf('--');
  if (split < 0 || split === argv.length - 1) throw new Error('usage: meter.js [--count label=SQL]… -- <command…>');
  const counters: Array<[string, string]> = [];
  for (let i = 0; i < split; i++) {
    if (argv[i] !== '--count') throw new Error(`unknown option ${argv[i]}`);
    const [label, ...sql] = argv[++i].split('=');
    counters.push([label, sql.join('=')]);
  }
  return { counters, command: argv.slice(split + 1) };
}

/** Every process under `root` (itself included), with the name the report gives it. */
function processTree(root: number): Map<number, string> {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  const out = new Map<number, string>();
  for (const pid of parent.keys()) {
    let p: number | undefined = pid;
    while (p && p !== root && p !== 1) p = parent.get(p);
    if (p !== root) continue;
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch {
      continue;
    }
    const app = /apps\/([\w-]+)\/src\/main\.js/.exec(cmd)?.[1];
    const name = app ?? (/receiver/.test(cmd) ? 'receiver' : /bench\/\w+\/run\.js/.test(cmd) ? 'bench' : 'other');
    out.set(pid, name);
  }
  return out;
}

async function main(): Promise<void> {
  const { counters, command } = parseArgs(process.argv.slice(2));
  const admin = new Client({ connectionString: ADMIN, application_name: 'bench meter' });
  await admin.connect();
  admin.on('error', (error) => process.stderr.write(`[meter] ${error.message}\n`));
  let benchDb: { name: string; client: Client } | undefined;

  const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: Array<{ at: number; text: string }> = [];
  createInterface({ input: child.stdout }).on('line', (text) => {
    process.stdout.write(`${text}\n`);
    if (!text.startsWith('{')) lines.push({ at: performance.now(), text });
  });
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
  let done = false;
  void exited.then(() => (done = true));
  const stop = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  /** CPU so far of every process seen, by pid (names kept for processes that have since exited). */
  const cumulative = new Map<string, number>();
  const samples: Sample[] = [];
  const read = async (): Promise<Sample> => {
    const cpu: Record<string, number> = {};
    for (const [pid, name] of processTree(child.pid ?? 0)) {
      const ms = procCpuMs(pid);
      if (ms !== undefined) cumulative.set(`${name}:${pid}`, ms);
    }
    const { rows } = await admin.query<{ pid: number; app: string | null; type: string; db: string | null }>(
      `SELECT pid, application_name AS app, backend_type AS type, datname AS db FROM pg_stat_activity
        WHERE pid <> pg_backend_pid() AND (datname LIKE 'mm\\_bench\\_%' OR datname IS NULL)`,
    );
    for (const r of rows) {
      const ms = procCpuMs(r.pid);
      if (ms === undefined) continue;
      const name = r.type !== 'client backend' ? 'pg:server' : r.app === 'bench meter' ? 'pg:meter' : `pg:${r.app || '?'}`;
      cumulative.set(`${name}:${r.pid}`, ms);
    }
    for (const [key, ms] of cumulative) {
      const name = key.replace(/:\d+$/, '');
      cpu[name] = (cpu[name] ?? 0) + ms;
    }
    const db = await admin.query<{ xid: string; commits: string | null; lsn: string; syncs: string; newest: string | null }>(
      `SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xid,
              (SELECT sum(xact_commit) FROM pg_stat_database WHERE datname LIKE 'mm\\_bench\\_%')::text AS commits,
              (pg_current_wal_lsn() - '0/0'::pg_lsn)::text AS lsn,
              (SELECT wal_sync FROM pg_stat_wal)::text AS syncs,
              (SELECT datname FROM pg_database WHERE datname LIKE 'mm\\_bench\\_%' ORDER BY oid DESC LIMIT 1) AS newest`,
    );
    const newest = db.rows[0].newest;
    if (newest && benchDb?.name !== newest) {
      await benchDb?.client.end().catch(() => undefined);
      const url = new URL(ADMIN);
      url.pathname = `/${newest}`;
      const client = new Client({ connectionString: url.toString(), application_name: 'bench meter' });
      // The bench drops its database at the end (WITH FORCE), which ends this connection.
      client.on('error', () => undefined);
      benchDb = (await client.connect().then(
        () => true,
        () => false,
      ))
        ? { name: newest, client }
        : undefined;
    }
    const counted: Record<string, number> = {};
    for (const [label, sql] of counters) {
      const value = await benchDb?.client.query<{ n: string }>(sql).then(
        (r) => Number(Object.values(r.rows[0] ?? {})[0] ?? 0),
        () => undefined,
      );
      if (value !== undefined) counted[label] = value;
    }
    const tables = await benchDb?.client
      .query<{ schema: string; n: string }>(
        `SELECT schemaname AS schema, sum(n_tup_ins + n_tup_upd + n_tup_del)::text AS n FROM pg_stat_user_tables GROUP BY schemaname`,
      )
      .then(
        (r) => r.rows,
        () => [],
      );
    return {
      at: performance.now(),
      rows: Object.fromEntries((tables ?? []).map((r) => [r.schema, Number(r.n)])),
      cpu,
      counters: counted,
      writeTransactions: Number(db.rows[0].xid),
      commits: Number(db.rows[0].commits ?? 0),
      walBytes: Number(db.rows[0].lsn.split('.')[0]),
      walSyncs: Number(db.rows[0].syncs),
    };
  };
  while (!done) {
    try {
      samples.push(await read());
    } catch (error) {
      process.stderr.write(`[meter] reading failed: ${(error as Error).message}\n`);
    }
    await new Promise((r) => setTimeout(r, PERIOD_MS));
  }
  const code = await exited;

  const parts = [
    ...byLines(samples, lines),
    ...byPhases(
      samples,
      counters.map(([l]) => l),
    ),
  ];
  const name = /bench\/(\w+)\/run/.exec(command.join(' '))?.[1] ?? 'command';
  process.stdout.write(`\n[meter] CPU ms per unit of each counter that moved, by part of the run\n`);
  for (const p of parts) process.stdout.write(`${JSON.stringify(p)}\n`);
  const file = writeResults(`meter-${name}`, [], { command, exitCode: code, periodMs: PERIOD_MS, counters, parts, samples, lines });
  process.stdout.write(`[meter] results: ${file}\n`);
  await benchDb?.client.end().catch(() => undefined);
  await admin.end();
  process.exitCode = code;
}

interface Part {
  kind: 'line' | 'phase';
  label: string;
  seconds: number;
  cpuMs: Record<string, number>;
  counters: Record<string, number>;
  writeTransactions: number;
  commits: number;
  walBytes: number;
  walSyncs: number;
  /** per counter that moved: CPU ms per unit by process, and write transactions, commits, WAL per unit */
  perUnit: Record<string, Record<string, number>>;
}

function between(a: Sample, b: Sample, kind: Part['kind'], label: string): Part {
  const r2 = (v: number) => Math.round(v * 100) / 100;
  const cpuMs: Record<string, number> = {};
  for (const [k, v] of Object.entries(b.cpu)) cpuMs[k] = v - (a.cpu[k] ?? 0);
  const counters: Record<string, number> = {};
  for (const [k, v] of Object.entries(b.counters)) counters[k] = v - (a.counters[k] ?? 0);
  const part: Part = {
    kind,
    label,
    seconds: r2((b.at - a.at) / 1000),
    cpuMs,
    counters,
    writeTransactions: b.writeTransactions - a.writeTransactions,
    commits: b.commits - a.commits,
    walBytes: b.walBytes - a.walBytes,
    walSyncs: b.walSyncs - a.walSyncs,
    perUnit: {},
  };
  for (const [k, n] of Object.entries(counters)) {
    if (n <= 0) continue;
    const unit: Record<string, number> = {};
    let total = 0;
    for (const [p, ms] of Object.entries(cpuMs)) {
      if (ms <= 0 || p === 'pg:meter') continue;
      unit[`cpu ${p}`] = r2(ms / n);
      total += ms;
    }
    unit['cpu total'] = r2(total / n);
    unit['write transactions'] = r2(part.writeTransactions / n);
    unit.commits = r2(part.commits / n);
    unit['WAL bytes'] = Math.round(part.walBytes / n);
    unit['WAL flushes'] = r2(part.walSyncs / n);
    for (const [schema, rows] of Object.entries(b.rows)) {
      const written = rows - (a.rows[schema] ?? 0);
      if (written > 0) unit[`rows ${schema}`] = r2(written / n);
    }
    part.perUnit[k] = unit;
  }
  return part;
}

/** One part per line of output: from the sample before the previous line to the one before this. */
function byLines(samples: Sample[], lines: Array<{ at: number; text: string }>): Part[] {
  const out: Part[] = [];
  const last = (t: number) => [...samples].reverse().find((s) => s.at <= t);
  for (let i = 1; i < lines.length; i++) {
    const a = last(lines[i - 1].at);
    const b = last(lines[i].at);
    if (a && b && b.at - a.at >= 2000) out.push(between(a, b, 'line', lines[i].text.slice(0, 160)));
  }
  return out;
}

/**
 * Per counter, the stretches in which it moves: from its first rise to its last, a pause of up to
 * 2 s not ending one (a slow workload does not raise its counter at every sample). A stretch of
 * orders paid is the payment workload, whatever else moves with it.
 */
function byPhases(samples: Sample[], labels: string[]): Part[] {
  const out: Part[] = [];
  for (const label of labels) {
    const value = (i: number) => samples[i].counters[label] ?? 0;
    let first: number | undefined;
    let last = 0;
    const close = () => {
      if (first !== undefined && samples[last].at - samples[first].at >= 2000)
        out.push(between(samples[first], samples[last], 'phase', label));
      first = undefined;
    };
    for (let i = 1; i < samples.length; i++) {
      if (value(i) > value(i - 1)) {
        if (first === undefined) first = i - 1;
        last = i;
      } else if (first !== undefined && samples[i].at - samples[last].at > 2000) close();
    }
    close();
  }
  return out;
}

main().catch((error: unknown) => {
  process.stderr.write(`[meter] failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
