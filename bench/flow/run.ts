/**
 * `npm run bench:flow` — the public money flow through the gateway, beside the ledger's own
 * transition in the same run (docs/performance.md "`bench:flow`"):
 *   - W1 at the ledger: uncontended transfers at the internal transition endpoint (as bench:ledger),
 *     and W1k, the very request a confirm sends (X-Idempotency-Key, fee to FEE_COLLECTION);
 *   - F1: create → verify-pin → confirm through the orchestrator's public listener, with real auth
 *     (PIN hash, consent proof), limits, risk, fee quote, SMS outbox: transfers/s and p50/p99 of
 *     each call.
 * Concurrency 8. Goal: one public transfer costs at most 3× the ledger's own transition (W1/F1).
 * Auth, ledger and orchestrator run as separate processes from the build (dist/), as `npm start` does.
 *
 * To say where a flow's time goes, the same run also measures the parts the flow cannot avoid:
 *   - A1: auth's check-pin with an intent id (one scrypt and a signed consent proof), alone;
 *   - F0: the flow's own ledger and auth calls made directly, without the orchestrator: ledger
 *     create → auth check-pin → ledger PIN_VERIFIED (with the proof) → ledger SUCCEEDED (key, fee).
 *     F1/F0 is what the orchestrator and its gateway add on top of what the flow must do anyway.
 * and the CPU time each process (the three services, their PostgreSQL backends, this client)
 * spends per operation of each workload, from /proc (Linux).
 *
 * FLOW_COUNT=1: each service also counts, per workload, its inbound and outbound HTTP calls, SQL
 * statements and Redis round trips (bench/flow/trace-preload.ts) and the table per flow is printed.
 * FLOW_PROFILE=1: as FLOW_COUNT, plus a V8 CPU profile of each service during each workload (the
 * `.cpuprofile` files are kept under FLOW_TRACE_DIR, default a fresh temporary directory, and
 * summarised: see bench/flow/profile-summary.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { type ServiceName, serviceDatabaseUrl } from '@mm/contracts';
import { OPS_CALLER, generateServiceKeys, serviceCredentialEnv } from '@mm/platform';
import { BenchClient } from '../ledger/http-client';
import { type PoolIntent, createFundedAccounts, createReadyIntents, randomPairs } from '../ledger/fixtures';
import { type BenchRow, type LoopResult, closedLoop, percentile, printTable, writeResults } from '../lib/bench';
import { checkInvariants } from '../../apps/ledger-wallets/test/invariants';
import { migrateAll } from '../../tools/db';
import { formatSummary, readProfile, summariseProfile } from './profile-summary';
import { must, reviseConfig } from '../lib/admin-config';
import { registerFundedCustomers } from '../lib/customers';
import { stopWithRun } from '../lib/run-children';
import { runDatabaseName, withRunDatabase } from '../lib/run-database';
import type { Tally, Trace } from './trace-preload';
import { StaffSignIn } from '../../tools/staff-sign-in';

const ADMIN = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/**
 * This run's own database (bench/lib/run-database.ts), so that two runs on one server never share or drop
 * one; BENCH_FLOW_DB names it instead (dropped and made again at the start). Dropped at the end, as
 * on Ctrl-C or SIGTERM (withRunDatabase).
 */
const DB = process.env.BENCH_FLOW_DB ?? runDatabaseName('flow');
if (!/^[a-z_][a-z0-9_]{0,62}$/.test(DB)) throw new Error(`BENCH_FLOW_DB must be a plain lower-case identifier, got ${DB}`);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 16);
/** Each workload's SECONDS are measured in this many slices, interleaved with the other workloads'. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_FLOW_ROUNDS ?? 4));
const CONCURRENCY = 8;
/**
 * Unmeasured seconds of every workload, at the measured concurrency, before the first round. Without
 * them the first round paid what only a cold process pays: every pooled connection of the
 * orchestrator plans each of its prepared statements six times (five custom plans, then the generic
 * one PostgreSQL keeps: 12 connections × 6 plans, about 2.4 ms each for the confirm's decisions), and
 * V8 compiles the hot paths. The ledger's and auth's paths were already warm by then (W1, W1k and A1
 * run before F0 in each round), so the first round weighed on F1 alone: its CPU ratio against F0 was
 * the highest of the four in every run measured on 2026-11-29 (e.g. 2.46 against 1.90–2.21). 0
 * measures cold.
 */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
if (!(WARMUP_SECONDS >= 0))
  throw new Error(`BENCH_WARMUP_SECONDS must be a number of seconds, 0 or more, got ${process.env.BENCH_WARMUP_SECONDS}`);
/** One key per caller, fresh for each run (libs/platform's builder, as npm start and the tests use). */
const SERVICE_KEYS = generateServiceKeys();
const BASE_PORT = 4200 + Math.floor(Math.random() * 50) * 10;
const PORTS = { orchestrator: BASE_PORT, auth: BASE_PORT + 1, ledger: BASE_PORT + 3, internal: BASE_PORT + 5 };
const ADMIN_USER = { phone: '+237699000009', pin: '4826' };
/** The run's administrator's TOTP secret (base32; a benchmark value, known to everyone). */
const ADMIN_TOTP_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const PIN = '2580';
const AMOUNT = 100;
const PROFILE = process.env.FLOW_PROFILE === '1';
const TRACE_DIR = PROFILE || process.env.FLOW_COUNT === '1' ? traceDir(process.env.FLOW_TRACE_DIR) : undefined;

function traceDir(given: string | undefined): string {
  if (!given) return mkdtempSync(join(tmpdir(), 'mm-bench-flow-'));
  mkdirSync(given, { recursive: true });
  return given;
}

function log(message: string): void {
  process.stdout.write(`[bench:flow] ${message}\n`);
}

/**
 * The environment of each service the benchmark starts, in one place (the shared settings, then
 * the service's own). Credentials: each service's own key and the digests of its callers' keys.
 */
function serviceEnv(service: ServiceName, port: number, adminUrl: string, own: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: serviceDatabaseUrl(adminUrl, service),
    DB_POOL_SIZE: '12',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `mmbench-flow-${process.pid}`,
    ...serviceCredentialEnv(service, SERVICE_KEYS),
    ...own,
  };
}

interface Service {
  name: ServiceName;
  child: ChildProcess;
}

async function startService(service: ServiceName, main: string, port: number, env: NodeJS.ProcessEnv): Promise<Service> {
  // BENCH_CPU_PROF=<dir>: each service writes a V8 CPU profile of its whole life there when it stops.
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`, `--cpu-prof-name=${main}.cpuprofile`]
    : [];
  // FLOW_COUNT / FLOW_PROFILE: counters and per-workload profiles (bench/flow/trace-preload.ts).
  const trace = TRACE_DIR ? ['-r', join(__dirname, 'trace-preload.js')] : [];
  const traceEnv = TRACE_DIR
    ? {
        FLOW_TRACE_DIR: TRACE_DIR,
        FLOW_TRACE_NAME: service,
        FLOW_TRACE_PROFILE: PROFILE ? '1' : '0',
        FLOW_TRACE_PG_CPU: process.env.FLOW_PG_CPU === '1' ? '1' : '0',
      }
    : {};
  const child = spawn(process.execPath, [...profile, ...trace, join(__dirname, `../../apps/${main}/src/main.js`)], {
    env: { ...env, ...traceEnv },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  stopWithRun(child);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${service} exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200) return { name: service, child };
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`${service} did not start`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Opens or closes the counting (and profiling) window of every service; `close` waits for their files. */
async function traceWindow(services: Service[], cmd: 'open' | 'close', label: string): Promise<void> {
  if (!TRACE_DIR) return;
  const files = services.map((s) => join(TRACE_DIR, cmd === 'open' ? `${s.name}.opened` : `${s.name}.trace.json`));
  for (const f of files) rmSync(f, { force: true });
  for (const s of services) {
    writeFileSync(join(TRACE_DIR, `${s.name}.cmd`), cmd);
    s.child.kill('SIGUSR2');
  }
  const deadline = Date.now() + 60_000;
  while (!files.every((f) => existsSync(f))) {
    if (Date.now() > deadline) throw new Error(`trace window ${cmd} ${label}: a service did not answer`);
    await new Promise((r) => setTimeout(r, 50));
  }
  if (cmd === 'close') {
    for (const s of services) {
      for (const ext of ['trace.json', 'cpuprofile']) {
        const from = join(TRACE_DIR, `${s.name}.${ext}`);
        if (!existsSync(from)) continue;
        writeFileSync(join(TRACE_DIR, `${label}.${s.name}.${ext}`), readFileSync(from));
        rmSync(from);
      }
    }
  }
}

/** Per-operation counts of one workload, per service: what FLOW_COUNT prints and stores. */
function traceReport(services: Service[], label: string, ops: number): Record<string, unknown> | undefined {
  if (!TRACE_DIR || ops === 0) return undefined;
  const per = (n: number) => Math.round((n / ops) * 100) / 100;
  const lines: string[] = [`\n${label}: per operation (${ops} operations)`];
  const out: Record<string, unknown> = {};
  for (const s of services) {
    const file = join(TRACE_DIR, `${label}.${s.name}.trace.json`);
    if (!existsSync(file)) continue;
    const t = JSON.parse(readFileSync(file, 'utf8')) as Trace;
    const sum = (m: Record<string, Tally>) => Object.values(m).reduce((a, v) => ({ n: a.n + v.n, ms: a.ms + v.ms }), { n: 0, ms: 0 });
    const sql = sum(t.sql);
    const inbound = sum(t.inbound);
    const outbound = sum(t.outbound);
    const redisCommands = Object.values(t.redis).reduce((a, v) => a + v, 0);
    const row = {
      inbound: per(inbound.n),
      outbound: per(outbound.n),
      sqlStatements: per(sql.n),
      sqlWaitMs: per(sql.ms),
      poolConnects: per(t.poolConnect.n),
      poolWaitMs: per(t.poolConnect.ms),
      redisRoundTrips: per(t.redisRoundTrips.n),
      redisCommands: per(redisCommands),
    };
    out[s.name] = { ...row, detail: t };
    lines.push(
      `  ${s.name}: ${row.inbound} requests in, ${row.outbound} out, ${row.sqlStatements} SQL statements (${row.sqlWaitMs} ms waited), ` +
        `${row.poolConnects} pool checkouts (${row.poolWaitMs} ms), ${row.redisRoundTrips} Redis round trips (${row.redisCommands} commands)`,
    );
    const rows = (m: Record<string, Tally>) =>
      Object.entries(m)
        .sort((a, b) => b[1].n - a[1].n)
        .map(([k, v]) => `      ${String(per(v.n)).padStart(6)} × ${(v.ms / v.n).toFixed(2).padStart(7)} ms  ${k}`);
    if (inbound.n) lines.push('    in:', ...rows(t.inbound));
    if (outbound.n) lines.push('    out:', ...rows(t.outbound));
    if (sql.n) lines.push('    SQL:', ...rows(t.sql));
    const backend = Object.entries(t.sqlBackendCpu ?? {});
    if (backend.length > 0) {
      const total = backend.reduce((a, [, v]) => a + v, 0);
      lines.push(
        `    database backend CPU for this service's SQL: ${per(total)} ms per operation (FLOW_PG_CPU), by statement:`,
        ...backend
          .sort((a, b) => b[1] - a[1])
          .map(
            ([k, v]) =>
              `      ${per(v).toFixed(2).padStart(7)} ms  (${((v / (t.sql[k]?.n || 1)) * 1000).toFixed(0).padStart(5)} µs each)  ${k}`,
          ),
      );
    }
    if (redisCommands) lines.push(`    Redis: ${JSON.stringify(Object.fromEntries(Object.entries(t.redis).map(([k, v]) => [k, per(v)])))}`);
  }
  process.stdout.write(lines.join('\n') + '\n');
  if (PROFILE) {
    for (const s of services) {
      const file = join(TRACE_DIR, `${label}.${s.name}.cpuprofile`);
      if (!existsSync(file)) continue;
      const summary = summariseProfile(readProfile(file), 20);
      process.stdout.write(`\n${formatSummary(`${label} ${s.name}`, summary, ops)}\n`);
      (out[s.name] as Record<string, unknown>).profile = { file, ...summary };
    }
  }
  return out;
}

/** CPU time (ms) of a process so far, from /proc/<pid>/stat (Linux; undefined elsewhere). */
function procCpuMs(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in 100 Hz ticks
  } catch {
    return undefined;
  }
}

type CpuSnapshot = {
  services: Record<string, number | undefined>;
  /** backend pid → the service whose pool opened it (application_name) and its CPU so far */
  postgres: Map<number, { app: string; ms: number }>;
  client: number;
};

async function cpuSnapshot(services: Service[], admin: Client): Promise<CpuSnapshot> {
  const backends = await admin.query<{ pid: number; app: string }>(
    `SELECT pid, application_name AS app FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
    [DB],
  );
  const postgres = new Map<number, { app: string; ms: number }>();
  for (const { pid, app } of backends.rows) {
    const ms = procCpuMs(pid);
    if (ms !== undefined) postgres.set(pid, { app: app || '?', ms });
  }
  const own = process.cpuUsage();
  return {
    services: Object.fromEntries(services.map((s) => [s.name, procCpuMs(s.child.pid)])),
    postgres,
    client: (own.user + own.system) / 1000,
  };
}

/**
 * CPU milliseconds per operation by process between two snapshots (a backend born in between
 * counts from zero). `postgres` is split by the service whose connection the backend serves
 * (`pg:<service>`, from the pools' application_name), so a service's SQL is priced on both sides.
 */
function cpuPerOp(before: CpuSnapshot, after: CpuSnapshot, ops: number): Record<string, number> {
  const r = (v: number) => Math.round((v / Math.max(1, ops)) * 100) / 100;
  const out: Record<string, number> = {};
  for (const [name, ms] of Object.entries(after.services)) {
    if (ms !== undefined && before.services[name] !== undefined) out[name] = r(ms - before.services[name]);
  }
  const pg: Record<string, number> = {};
  for (const [pid, { app, ms }] of after.postgres) pg[app] = (pg[app] ?? 0) + ms - (before.postgres.get(pid)?.ms ?? 0);
  out.postgres = r(Object.values(pg).reduce((a, v) => a + v, 0));
  out['bench client'] = r(after.client - before.client);
  out.total = Math.round(Object.values(out).reduce((a, v) => a + v, 0) * 100) / 100;
  for (const [app, ms] of Object.entries(pg)) out[`pg:${app}`] = r(ms);
  return out;
}

function stop(service: Service | undefined): Promise<void> {
  const child = service?.child;
  if (!child || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

interface Customer {
  phone: string;
  token: string;
  userId: string;
  account: string;
}

type Step = 'create' | 'pin' | 'confirm';

/** The auth user id a token names (its `sub`); the benchmark only reads its own tokens. */
function subjectOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as { sub: string }).sub;
}

function sortedPercentiles(values: number[]): { p50: number; p99: number; n: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), n: sorted.length };
}

async function main(): Promise<void> {
  await withRunDatabase(ADMIN, 'flow', (db) => measure(db.adminUrl), { name: DB });
}

async function measure(adminUrl: string): Promise<void> {
  const started = Date.now();
  const rows: BenchRow[] = [];
  const cpu: Record<string, Record<string, number>> = {};
  const traces: Record<string, unknown> = {};
  await migrateAll(adminUrl);
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();

  const services: Service[] = [];
  try {
    const url = (port: number) => `http://127.0.0.1:${port}`;
    const env = {
      auth: serviceEnv('auth', PORTS.auth, adminUrl, {
        BOOTSTRAP_ADMIN_PHONE: ADMIN_USER.phone,
        BOOTSTRAP_ADMIN_PIN: ADMIN_USER.pin,
        BOOTSTRAP_ADMIN_TOTP_SECRET: ADMIN_TOTP_SECRET,
        TRUST_FORWARDED_FOR: 'true',
      }),
      ledger: serviceEnv('ledger-wallets', PORTS.ledger, adminUrl, {
        AUTH_URL: url(PORTS.auth),
        DB_POOL_SIZE: '20',
        LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
        LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
        // Off like the integrity schedule (as in bench:ledger): on every five-minute mark of the clock
        // a run crossed, the anchor job walked every fixture's chain in the middle of some slice and,
        // since the fixtures are funded by SQL, logged LEDGER_CHAIN_ANCHOR_REFUSED (docs/ledger-chain.md).
        LEDGER_CHAIN_ANCHOR_INTERVAL_MS: '0',
      }),
      orchestrator: serviceEnv('orchestrator', PORTS.orchestrator, adminUrl, {
        AUTH_URL: url(PORTS.auth),
        LEDGER_URL: url(PORTS.ledger),
        PARTNERS_URL: 'http://127.0.0.1:9',
        WEBHOOK_DISPATCHER_URL: 'http://127.0.0.1:9',
        INTERNAL_PORT: String(PORTS.internal),
        // Every bench customer registers from 127.0.0.1: no per-address sign-up limit here.
        REGISTRATION_MAX_PER_IP_PER_HOUR: '0',
        // The run's administrator revises the risk and limits sections alone (reviseConfig): no second approver.
        APPROVALS_ONE_PERSON_ACTIONS: 'CONFIG_CHANGE',
      }),
    };
    services.push(await startService('auth', 'auth', PORTS.auth, env.auth));
    services.push(await startService('ledger-wallets', 'ledger-wallets', PORTS.ledger, env.ledger));
    services.push(await startService('orchestrator', 'orchestrator', PORTS.orchestrator, env.orchestrator));
    const gateway = new BenchClient(url(PORTS.orchestrator), {}, 64);
    // The benchmark stands in for the orchestrator at the ledger and at auth (W1, A1, F0), and
    // funds accounts as an operator (the ledger's test-funding route is the operators').
    const ledger = new BenchClient(url(PORTS.ledger), { 'x-service-key': SERVICE_KEYS.orchestrator }, 64);
    const ledgerOps = new BenchClient(url(PORTS.ledger), { 'x-service-key': SERVICE_KEYS[OPS_CALLER] }, 64);
    const authDirect = new BenchClient(url(PORTS.auth), { 'x-service-key': SERVICE_KEYS.orchestrator }, 64);

    // ---- Setup (not measured): velocity room for a benchmark, customers registered and funded.
    // The administrator signs in with its second factor (docs/auth-limits.md "Staff sign-in").
    const adminSignIn = new StaffSignIn((path, body) => gateway.call('POST', path, body)).knowSecret(ADMIN_USER.phone, ADMIN_TOTP_SECRET);
    const adminToken = must(await adminSignIn.login(ADMIN_USER.phone, ADMIN_USER.pin), 200, 'admin login').body.token as string;
    await reviseConfig<{ velocity: Record<string, number> }>(gateway, adminToken, 'risk', 'benchmark run', (document) => {
      document.velocity = { ...document.velocity, windowSeconds: 60, maxPerCustomer: 10_000, maxPerDevice: 10_000 };
    });
    log(`registering ${2 * CONCURRENCY} customers`);
    const customers: Customer[] = (
      await registerFundedCustomers(gateway, ledgerOps, { count: 2 * CONCURRENCY, firstPhone: 80_000_000, pin: PIN })
    ).map((c) => ({ ...c, userId: subjectOf(c.token) }));
    const feeAccount = (await admin.query(`SELECT id FROM ledger.accounts WHERE account_type = 'fee_collection' AND currency = 'XAF'`))
      .rows[0].id as string;

    /**
     * The workloads are measured in ROUNDS interleaved slices (W1, W1k, A1, F0, F1, W1, …) rather
     * than one after the other: on a machine shared with other jobs the load changes from one
     * minute to the next, and interleaving makes every workload see the same mix of it, so the
     * ratios within a run hold. Counters and profiles (FLOW_COUNT, FLOW_PROFILE) cover the first
     * slice of each workload.
     */
    type Op = (worker: number) => Promise<string | void>;
    /** `warm: false`: left out of the warm-up (its operations come from a finite pool, see W1) */
    const workloads: Array<{ label: string; op: Op; warm?: false }> = [];
    const measured: Record<string, LoopResult> = {};
    /** Each round's operations per second and CPU ms per operation (all processes), by workload. */
    const perRound: Record<string, Array<{ perSec: number; cpuMs: number }>> = {};
    const measureAll = async () => {
      const totals: Record<
        string,
        { ok: number; errors: number; codes: Record<string, number>; lat: number[]; sec: number; cpu?: Record<string, number> }
      > = {};
      if (WARMUP_SECONDS > 0) {
        for (const { label, op, warm } of workloads) {
          if (warm === false) continue;
          const r = await closedLoop(CONCURRENCY, WARMUP_SECONDS, op);
          if (r.errors > 0) log(`warm-up of ${label}: ${r.errors} errors ${JSON.stringify(r.errorCodes)}`);
        }
        // The per-call latencies are those of the measured rounds only.
        for (const steps of [floorSteps, latencies]) for (const k of Object.keys(steps)) steps[k as keyof typeof steps] = [];
      }
      for (let round = 0; round < ROUNDS; round++) {
        for (const { label, op } of workloads) {
          if (round === 0) await traceWindow(services, 'open', label);
          const before = await cpuSnapshot(services, admin);
          const r = await closedLoop(CONCURRENCY, SECONDS / ROUNDS, op);
          const after = await cpuSnapshot(services, admin);
          const ops = r.ok + r.errors;
          if (round === 0) {
            await traceWindow(services, 'close', label);
            const t = traceReport(services, label, ops);
            if (t) traces[label] = t;
          }
          const t = (totals[label] ??= { ok: 0, errors: 0, codes: {}, lat: [], sec: 0 });
          t.ok += r.ok;
          t.errors += r.errors;
          for (const [code, n] of Object.entries(r.errorCodes)) t.codes[code] = (t.codes[code] ?? 0) + n;
          // One by one: a fast workload (G0) has more latencies than a spread fits on the stack.
          for (const ms of r.latenciesMs) t.lat.push(ms);
          t.sec += r.elapsedSec;
          // CPU milliseconds summed over the slices, divided by the operations at the end.
          const used = cpuPerOp(before, after, 1);
          (perRound[label] ??= []).push({ perSec: r.ok / r.elapsedSec, cpuMs: used.total / Math.max(1, ops) });
          t.cpu ??= {};
          for (const [k, v] of Object.entries(used)) t.cpu[k] = (t.cpu[k] ?? 0) + v;
        }
      }
      for (const [label, t] of Object.entries(totals)) {
        const lat = t.lat.sort((x, y) => x - y);
        const ops = t.ok + t.errors;
        measured[label] = {
          ok: t.ok,
          errors: t.errors,
          errorCodes: t.codes,
          latenciesMs: lat,
          elapsedSec: t.sec,
          p50Ms: percentile(lat, 50),
          p99Ms: percentile(lat, 99),
          perSec: Math.round((t.ok / t.sec) * 10) / 10,
        };
        cpu[label] = Object.fromEntries(Object.entries(t.cpu ?? {}).map(([k, v]) => [k, Math.round((v / Math.max(1, ops)) * 100) / 100]));
        const m = measured[label];
        log(`${label}: ${m.perSec}/s p50 ${m.p50Ms} p99 ${m.p99Ms} errors ${JSON.stringify(m.errorCodes)}`);
      }
    };
    const row = (workload: string, r: LoopResult, extra: Partial<BenchRow> = {}): BenchRow => ({
      workload,
      concurrency: CONCURRENCY,
      committedPerSec: r.perSec,
      p50Ms: r.p50Ms,
      p99Ms: r.p99Ms,
      errors: r.errors,
      errorCodes: r.errorCodes,
      ...extra,
    });
    const callRows = (steps: Record<string, number[]>, names: Record<string, string>) => {
      for (const [step, values] of Object.entries(steps)) {
        const p = sortedPercentiles(values);
        rows.push({
          workload: `  ${names[step] ?? step}`,
          concurrency: CONCURRENCY,
          committedPerSec: 0,
          p50Ms: p.p50,
          p99Ms: p.p99,
          errors: 0,
          note: `${p.n} calls`,
        });
      }
    };

    // ---- W1 / W1k at the ledger, on SQL fixtures (as bench:ledger does).
    const accounts = await createFundedAccounts(admin, 2_000, 'USER', 'bench-flow-');
    await admin.query('VACUUM ANALYZE');
    const confirm = (i: PoolIntent, fee: boolean) => ({
      toStatus: 'SUCCEEDED',
      actor: { id: 'bench' },
      executionContext: {
        sourceAccountId: i.source,
        destinationAccountId: i.destination,
        amount: 10,
        currency: 'XAF',
        ...(fee ? { fee: { amount: 5, accountId: feeAccount } } : {}),
        metadata: { typeCode: 'P2P' },
      },
    });
    const w1Names: Record<string, string> = {
      W1: 'W1 ledger transition→SUCCEEDED (no key, no fee)',
      W1k: 'W1k ledger transition as confirm sends it (key, fee)',
    };
    for (const [label, withKey] of [
      ['W1', false],
      ['W1k', true],
    ] as const) {
      const pool = await createReadyIntents(admin, randomPairs(accounts, 20_000));
      let next = 0;
      workloads.push({
        label,
        // The pool is sized for the measured seconds (at 1,100 transitions a second it lasts about
        // 18 s): a warm-up would eat into it. The ledger's confirm path is warm by the time W1k, F0
        // and F1 are measured, since W1 runs first in every round.
        warm: false,
        op: async () => {
          const intent = pool[next++];
          if (!intent) return 'POOL_EXHAUSTED';
          const res = await ledger.call(
            'POST',
            `/v1/internal/intents/${intent.id}/transition`,
            confirm(intent, withKey),
            withKey ? { 'x-idempotency-key': `confirm:${intent.id}` } : {},
          );
          return res.status === 200 ? undefined : String(res.body.code ?? res.status);
        },
      });
    }
    await admin.query('CHECKPOINT');

    // ---- A1: auth's check-pin alone, as the orchestrator calls it (the user's token, an intent id: a proof is signed).
    workloads.push({
      label: 'A1',
      op: async (worker) => {
        const payer = customers[worker];
        const res = await authDirect.call(
          'POST',
          '/auth/check-pin',
          { pin: PIN, intentId: randomUUID() },
          { authorization: `Bearer ${payer.token}` },
        );
        return res.status === 200 ? undefined : String(res.body.code ?? res.status);
      },
    });

    // ---- F0: the calls a flow cannot avoid, made directly (no orchestrator): the floor under F1.
    const floorSteps: Record<string, number[]> = { create: [], pin: [], transition: [], confirm: [] };
    const stepTimed = async <T>(steps: Record<string, number[]>, step: string, call: () => Promise<T>): Promise<T> => {
      const t0 = performance.now();
      const res = await call();
      steps[step].push(performance.now() - t0);
      return res;
    };
    const FEE = 5;
    workloads.push({
      label: 'F0',
      op: async (worker) => {
        const payer = customers[worker];
        const payee = customers[worker + CONCURRENCY];
        const actor = { id: payer.userId };
        const created = await stepTimed(floorSteps, 'create', () =>
          ledger.call('POST', '/v1/internal/intents', {
            idempotencyKey: randomUUID(),
            type: 'TRANSFER',
            sourceAccountId: payer.account,
            destinationAccountId: payee.account,
            amount: AMOUNT,
            currency: 'XAF',
            fee: FEE,
            requiresOtp: false,
            actor,
            metadata: { operationType: 'TRANSFER' },
          }),
        );
        if (created.status !== 201 && created.status !== 200) return `create:${String(created.body.code ?? created.status)}`;
        const id = created.body.intentId as string;
        const pin = await stepTimed(floorSteps, 'pin', () =>
          authDirect.call('POST', '/auth/check-pin', { pin: PIN, intentId: id }, { authorization: `Bearer ${payer.token}` }),
        );
        if (pin.status !== 200) return `pin:${String(pin.body.code ?? pin.status)}`;
        const moved = await stepTimed(floorSteps, 'transition', () =>
          ledger.call('POST', `/v1/internal/intents/${id}/transition`, {
            toStatus: 'PIN_VERIFIED',
            actor,
            consentProof: pin.body.consentProof,
          }),
        );
        if (moved.status !== 200) return `transition:${String(moved.body.code ?? moved.status)}`;
        const done = await stepTimed(floorSteps, 'confirm', () =>
          ledger.call(
            'POST',
            `/v1/internal/intents/${id}/transition`,
            {
              toStatus: 'SUCCEEDED',
              actor,
              executionContext: {
                sourceAccountId: payer.account,
                destinationAccountId: payee.account,
                amount: AMOUNT,
                currency: 'XAF',
                fee: { amount: FEE, accountId: feeAccount },
                createdBy: payer.userId,
                metadata: { typeCode: 'P2P' },
              },
            },
            { 'x-idempotency-key': `confirm:${id}` },
          ),
        );
        return done.status === 200 ? undefined : `confirm:${String(done.body.code ?? done.status)}`;
      },
    });

    // ---- F1: the public flow. Worker w pays from customer w to customer w + 8, with its own token.
    const latencies: Record<Step, number[]> = { create: [], pin: [], confirm: [] };
    const flow = async (worker: number, after?: (step: Step) => Promise<void>): Promise<string | void> => {
      const payer = customers[worker];
      const payee = customers[worker + CONCURRENCY];
      const h = { authorization: `Bearer ${payer.token}` };
      const created = await stepTimed(latencies, 'create', () =>
        gateway.call(
          'POST',
          '/api/v1/intents',
          { type: 'TRANSFER', amount: AMOUNT, clientPhone: payee.phone, idempotencyKey: randomUUID() },
          h,
        ),
      );
      if (created.status !== 201) return `create:${String(created.body.code ?? created.status)}`;
      await after?.('create');
      const id = created.body.intentId as string;
      const pin = await stepTimed(latencies, 'pin', () => gateway.call('POST', `/api/v1/intents/${id}/verify-pin`, { pin: PIN }, h));
      if (pin.status !== 200) return `pin:${String(pin.body.code ?? pin.status)}`;
      await after?.('pin');
      const done = await stepTimed(latencies, 'confirm', () => gateway.call('POST', `/api/v1/intents/${id}/confirm`, undefined, h));
      if (done.status !== 200) return `confirm:${String(done.body.code ?? done.status)}`;
      await after?.('confirm');
    };
    for (let w = 0; w < CONCURRENCY; w++) await flow(w); // warm-up: one flow per worker
    for (const k of Object.keys(latencies) as Step[]) latencies[k] = [];
    workloads.push({ label: 'F1', op: (worker) => flow(worker) });
    // G0: the cheapest request the gateway serves (public, no I/O): the per-request floor of the
    // orchestrator's HTTP pipeline, three of which every flow pays.
    workloads.push({
      label: 'G0',
      op: async () => {
        const res = await gateway.call('GET', '/api/config/currencies');
        return res.status === 200 ? undefined : String(res.body.code ?? res.status);
      },
    });

    log(
      `measuring ${workloads.map((w) => w.label).join(', ')}: ${ROUNDS} interleaved rounds of ${SECONDS / ROUNDS} s each, ` +
        `after ${WARMUP_SECONDS} s of each unmeasured`,
    );
    await measureAll();
    for (const label of ['W1', 'W1k']) rows.push(row(w1Names[label], measured[label]));
    const w1 = measured.W1.perSec;
    const { A1: a1, F0: f0, F1: f } = measured;
    rows.push(row('A1 auth check-pin with a consent proof (one scrypt)', a1));
    rows.push(
      row('F0 the same calls without the orchestrator', f0, {
        ratios: { W1: f0.perSec / (w1 || 1) },
        note: `costs ${(w1 / (f0.perSec || 1)).toFixed(2)}× W1`,
      }),
    );
    callRows(floorSteps, {
      create: 'F0 call: ledger create',
      pin: 'F0 call: auth check-pin',
      transition: 'F0 call: ledger →PIN_VERIFIED',
      confirm: 'F0 call: ledger →SUCCEEDED',
    });
    const ratio = f.perSec > 0 ? w1 / f.perSec : Infinity;
    // The same question asked of CPU time, which a busy shared machine distorts far less than
    // throughput: CPU milliseconds (all processes) of one flow over those of one W1 transition.
    const cpuRatio = (a: string) => Math.round((cpu[a].total / cpu.W1.total) * 100) / 100;
    // The flow's unavoidable parts priced at their own rates in this run: one W1 and one check-pin.
    const w1PlusPin = 1 / (1 / (w1 || 1) + 1 / (a1.perSec || 1));
    rows.push(
      row('F1 public flow create→verify-pin→confirm', f, {
        ratios: { W1: f.perSec / (w1 || 1), F0: f.perSec / (f0.perSec || 1) },
        note:
          `costs ${ratio.toFixed(2)}× W1 (goal ≤ 3×), ${(w1PlusPin / (f.perSec || 1)).toFixed(2)}× (W1 + A1), ` +
          `${(f0.perSec / (f.perSec || 1)).toFixed(2)}× F0; in CPU time ${cpuRatio('F1')}× W1 (F0: ${cpuRatio('F0')}× W1)`,
      }),
    );
    callRows(latencies, { create: 'F1 call: create', pin: 'F1 call: verify-pin', confirm: 'F1 call: confirm' });
    rows.push(row('G0 gateway floor: GET /api/config/currencies (public, no I/O)', measured.G0));

    // FLOW_STEP_CPU=<n>: n flows one at a time, with the CPU of every process read between the
    // calls: what each call costs each process (at concurrency 1, nothing else runs but the
    // services' own timers). /proc counts in 10 ms ticks: n of 50 or more gives 0.2 ms resolution.
    const stepFlows = Number(process.env.FLOW_STEP_CPU ?? 0);
    const stepCpu: Record<string, Record<string, number>> = {};
    if (stepFlows > 0) {
      const wall: Record<Step, number[]> = { create: [], pin: [], confirm: [] };
      for (const k of Object.keys(latencies) as Step[]) latencies[k] = [];
      let mark: CpuSnapshot;
      let t0: number;
      for (let i = 0; i < stepFlows; i++) {
        mark = await cpuSnapshot(services, admin);
        t0 = performance.now();
        const failed = await flow(i % CONCURRENCY, async (step) => {
          wall[step].push(performance.now() - t0);
          const now = await cpuSnapshot(services, admin);
          const used = cpuPerOp(mark, now, 1);
          const acc = (stepCpu[step] ??= {});
          for (const [k, v] of Object.entries(used)) acc[k] = (acc[k] ?? 0) + v / stepFlows;
          mark = await cpuSnapshot(services, admin);
          t0 = performance.now();
        });
        if (failed) throw new Error(`step CPU flow failed: ${failed}`);
      }
      for (const step of Object.keys(stepCpu)) {
        for (const k of Object.keys(stepCpu[step])) stepCpu[step][k] = Math.round(stepCpu[step][k] * 100) / 100;
        stepCpu[step]['wall p50 ms'] = percentile(
          wall[step as Step].sort((a, b) => a - b),
          50,
        );
      }
    }

    // F1 against F0, the flow's own ledger and auth calls: the whole run's ratios, and each round's,
    // whose spread says how far one run's ratio can be trusted on this machine.
    const f0Cpu = cpu.F0.total || 1;
    const vsF0 = {
      throughput: Math.round((f.perSec / (f0.perSec || 1)) * 100) / 100,
      cpu: Math.round((cpu.F1.total / f0Cpu) * 100) / 100,
      rounds: perRound.F1.map((one, i) => ({
        throughput: Math.round((one.perSec / (perRound.F0[i].perSec || 1)) * 100) / 100,
        cpu: Math.round((one.cpuMs / (perRound.F0[i].cpuMs || 1)) * 100) / 100,
      })),
    };

    const inv = await checkInvariants(admin);
    const clean = inv.ledgerGaps === 0 && inv.splitGaps === 0 && inv.intentMismatches === 0 && inv.unbalancedTransactions === 0;
    log(`ledger invariants after the run: ${JSON.stringify(inv)}${clean ? '' : ' — BROKEN'}`);
    printTable('Public flow benchmark (transfers/s at concurrency 8; W1 = the ledger transition alone, same run)', rows);
    printCpu(cpu);
    if (stepFlows > 0) printCpu(stepCpu, `CPU ms per call of one flow at concurrency 1 (${stepFlows} flows), by process`);
    const file = writeResults('flow', rows, {
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      rounds: ROUNDS,
      invariants: inv,
      ratioToW1: ratio,
      ratioToW1PlusCheckPin: w1PlusPin / (f.perSec || 1),
      ratioToF0: f0.perSec / (f.perSec || 1),
      // F1 over F0 (below 1: the public flow is slower); ratioToF0 above is the inverse, F0 over F1.
      f1OverF0: vsF0,
      cpuRatioToW1: { F1: cpuRatio('F1'), F0: cpuRatio('F0'), A1: cpuRatio('A1') },
      cpuMsPerOperation: cpu,
      ...(stepFlows > 0 ? { cpuMsPerCallAtConcurrency1: stepCpu } : {}),
      ...(TRACE_DIR ? { traceDir: TRACE_DIR, traces } : {}),
      elapsedSec: (Date.now() - started) / 1000,
    });
    log(`results: ${file}${TRACE_DIR ? `; counters and profiles: ${TRACE_DIR}` : ''}`);
    log(
      `goal (public flow ≤ 3× the ledger transition): ${ratio <= 3 ? 'met' : 'NOT met'} (${ratio.toFixed(2)}× in throughput, ` +
        `${cpuRatio('F1')}× in CPU time; the flow's own ledger and auth calls alone: ${cpuRatio('F0')}×)`,
    );
    const spread = (key: 'throughput' | 'cpu') => vsF0.rounds.map((r) => r[key].toFixed(2)).join(' ');
    log(
      `F1 against F0: ${vsF0.throughput} in throughput (target ≥ 0.6: ${vsF0.throughput >= 0.6 ? 'met' : 'NOT met'}; rounds ${spread('throughput')}), ` +
        `${vsF0.cpu}× in CPU per flow (target ≤ 1.5: ${vsF0.cpu <= 1.5 ? 'met' : 'NOT met'}; rounds ${spread('cpu')})`,
    );
    if (!clean) process.exitCode = 1;
  } finally {
    for (const service of services.reverse()) await stop(service);
    await admin.end();
  }
}

/** CPU milliseconds per operation by process, one line per workload. */
function printCpu(
  cpu: Record<string, Record<string, number>>,
  title = 'CPU ms per operation by process (2 cores: ~2000 CPU ms per second of wall time)',
): void {
  const columns = [...new Set(Object.values(cpu).flatMap((c) => Object.keys(c)))];
  const lines = [
    `\n${title}`,
    `| workload | ${columns.join(' | ')} |`,
    `|---|${columns.map(() => '---').join('|')}|`,
    ...Object.entries(cpu).map(([w, c]) => `| ${w} | ${columns.map((k) => (c[k] ?? 0).toFixed(2)).join(' | ')} |`),
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`[bench:flow] failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
