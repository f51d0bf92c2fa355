import { readFileSync, readdirSync } from 'node:fs';
import type { Client } from 'pg';

/**
 * What the machine spent between two readings, split by process: each service (a cluster's primary
 * and workers added up, and also listed one by one), the PostgreSQL backends serving each service
 * (by the pools' application_name), PostgreSQL's own background processes (WAL writer, checkpointer:
 * the price of the commits), and the load generator itself. Plus the database's side of the work:
 * write transactions (transaction ids handed out), commits as PostgreSQL counts them, WAL bytes and
 * WAL flushes. Linux only (/proc), like bench:flow's CPU columns.
 */

/** utime + stime of one process, in ms (100 Hz ticks); undefined once it is gone. */
export function procCpuMs(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** The direct children of `pid` (a cluster primary's workers). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      /* exited while listed */
    }
  }
  return out;
}

/** A service as the meter sees it: its top process and, for a cluster, the workers under it. */
export interface MeteredService {
  name: string;
  pid: number | undefined;
  /** true when `pid` is a cluster primary whose workers serve the requests */
  cluster?: boolean;
}

export interface Reading {
  at: number;
  /** per process key (`orchestrator`, `orchestrator/w1`, …) its CPU ms so far */
  processes: Map<string, number>;
  /** backend pid → service name and CPU ms so far */
  backends: Map<number, { app: string; ms: number }>;
  client: number;
  xid: bigint;
  commits: number;
  walBytes: bigint;
  walSyncs: number;
  /** rows inserted, updated or deleted so far, per schema (= per service) */
  rows: Record<string, number>;
}

export class ProcessMeter {
  constructor(
    private readonly admin: Client,
    private readonly database: string,
  ) {}

  async read(services: MeteredService[]): Promise<Reading> {
    const processes = new Map<string, number>();
    for (const s of services) {
      const own = procCpuMs(s.pid);
      if (own !== undefined) processes.set(s.cluster ? `${s.name}/primary` : s.name, own);
      if (s.cluster && s.pid) {
        childPids(s.pid)
          .sort((a, b) => a - b)
          .forEach((pid, i) => {
            const ms = procCpuMs(pid);
            if (ms !== undefined) processes.set(`${s.name}/w${i + 1}:${pid}`, ms);
          });
      }
    }
    // Client backends of this run's database, and the server's own background processes (no database).
    const { rows } = await this.admin.query<{ pid: number; app: string | null; type: string; db: string | null }>(
      `SELECT pid, application_name AS app, backend_type AS type, datname AS db
         FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND (datname = $1 OR datname IS NULL)`,
      [this.database],
    );
    const backends = new Map<number, { app: string; ms: number }>();
    for (const r of rows) {
      const ms = procCpuMs(r.pid);
      if (ms === undefined) continue;
      const app = r.type === 'client backend' ? r.app || '?' : 'server';
      backends.set(r.pid, { app, ms });
    }
    // pg_current_snapshot's xmax is the next transaction id: it moves once per writing transaction,
    // at once (pg_stat_database's counters reach shared memory up to a second late).
    const db = await this.admin.query<{ xid: string; commits: string; lsn: string; syncs: string }>(
      `SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xid,
              (SELECT xact_commit FROM pg_stat_database WHERE datname = $1)::text AS commits,
              (pg_current_wal_lsn() - '0/0'::pg_lsn)::text AS lsn,
              (SELECT wal_sync FROM pg_stat_wal)::text AS syncs`,
      [this.database],
    );
    // Table statistics reach these counters up to about a second late; over a segment of many
    // seconds that shifts a little of one segment's rows into the next, in both arms alike.
    const tables = await this.admin.query<{ schema: string; n: string }>(
      `SELECT schemaname AS schema, sum(n_tup_ins + n_tup_upd + n_tup_del)::text AS n FROM pg_stat_user_tables GROUP BY schemaname`,
    );
    const own = process.cpuUsage();
    return {
      at: performance.now(),
      processes,
      backends,
      client: (own.user + own.system) / 1000,
      xid: BigInt(db.rows[0].xid),
      commits: Number(db.rows[0].commits),
      walBytes: BigInt(db.rows[0].lsn.split('.')[0]),
      walSyncs: Number(db.rows[0].syncs),
      rows: Object.fromEntries(tables.rows.map((r) => [r.schema, Number(r.n)])),
    };
  }
}

/** What one stretch of load cost, in totals (divide by its operations for a per-operation cost). */
export interface Spent {
  wallMs: number;
  /** CPU ms by process key, plus `pg:<service>`, `pg:server` and `bench client` */
  cpuMs: Record<string, number>;
  writeTransactions: number;
  commits: number;
  walBytes: number;
  walSyncs: number;
  /** rows written per schema */
  rows: Record<string, number>;
}

export function spentBetween(before: Reading, after: Reading): Spent {
  const cpuMs: Record<string, number> = {};
  // A cluster worker is keyed by its pid too, so one restarted between the readings starts at zero.
  for (const [key, ms] of after.processes) {
    const name = key.replace(/:\d+$/, '');
    cpuMs[name] = (cpuMs[name] ?? 0) + ms - (before.processes.get(key) ?? 0);
  }
  for (const [pid, { app, ms }] of after.backends) {
    const key = `pg:${app}`;
    cpuMs[key] = (cpuMs[key] ?? 0) + ms - (before.backends.get(pid)?.ms ?? 0);
  }
  cpuMs['bench client'] = after.client - before.client;
  const rows: Record<string, number> = {};
  for (const [schema, n] of Object.entries(after.rows)) rows[schema] = n - (before.rows[schema] ?? 0);
  return {
    wallMs: after.at - before.at,
    cpuMs,
    writeTransactions: Number(after.xid - before.xid),
    commits: after.commits - before.commits,
    walBytes: Number(after.walBytes - before.walBytes),
    walSyncs: after.walSyncs - before.walSyncs,
    rows,
  };
}

export function addSpent(a: Spent | undefined, b: Spent): Spent {
  if (!a) return { ...b, cpuMs: { ...b.cpuMs }, rows: { ...b.rows } };
  const cpuMs = { ...a.cpuMs };
  for (const [k, v] of Object.entries(b.cpuMs)) cpuMs[k] = (cpuMs[k] ?? 0) + v;
  const rows = { ...a.rows };
  for (const [k, v] of Object.entries(b.rows)) rows[k] = (rows[k] ?? 0) + v;
  return {
    wallMs: a.wallMs + b.wallMs,
    cpuMs,
    writeTransactions: a.writeTransactions + b.writeTransactions,
    commits: a.commits + b.commits,
    walBytes: a.walBytes + b.walBytes,
    walSyncs: a.walSyncs + b.walSyncs,
    rows,
  };
}

const round2 = (v: number) => Math.round(v * 100) / 100;

/**
 * Per operation: CPU ms of every process and their sum per service (a service's own process or
 * cluster, plus its PostgreSQL backends), write transactions, commits, WAL bytes and flushes.
 */
export function perOperation(spent: Spent, ops: number): Record<string, number> {
  const n = Math.max(1, ops);
  const out: Record<string, number> = {};
  let total = 0;
  const byService: Record<string, number> = {};
  for (const [k, v] of Object.entries(spent.cpuMs).sort()) {
    out[`cpu ${k}`] = round2(v / n);
    total += v;
    // `orchestrator/w1` and `orchestrator/primary` are also summed as `orchestrator`.
    if (k.includes('/')) byService[k.split('/')[0]] = (byService[k.split('/')[0]] ?? 0) + v;
  }
  for (const [k, v] of Object.entries(byService)) out[`cpu ${k}`] = round2(v / n);
  out['cpu total'] = round2(total / n);
  out['write transactions'] = round2(spent.writeTransactions / n);
  out.commits = round2(spent.commits / n);
  out['WAL bytes'] = Math.round(spent.walBytes / n);
  out['WAL flushes'] = round2(spent.walSyncs / n);
  for (const [schema, rows] of Object.entries(spent.rows).sort()) if (rows > 0) out[`rows ${schema}`] = round2(rows / n);
  return out;
}

/** Share of one core each process kept busy over the stretch (100 = one core; the machine has 2). */
export function utilisation(spent: Spent): Record<string, number> {
  const out: Record<string, number> = {};
  let total = 0;
  for (const [k, v] of Object.entries(spent.cpuMs)) {
    out[k] = Math.round((v / spent.wallMs) * 100);
    total += v;
    if (k.includes('/')) out[k.split('/')[0]] = (out[k.split('/')[0]] ?? 0) + Math.round((v / spent.wallMs) * 100);
  }
  out.total = Math.round((total / spent.wallMs) * 100);
  return out;
}
