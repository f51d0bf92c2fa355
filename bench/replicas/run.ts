/**
 * `npm run bench:replicas` — the public flow (F1 of bench:flow: create → verify-pin → confirm
 * through the orchestrator's public listener) with one orchestrator process, then with a cluster of
 * two sharing its ports, in the same run and at the same concurrency. The target: F1 with two
 * replicas at least 1.0 × F1 with one, with no errors but documented 429s
 * (docs/performance.md "`bench:replicas`").
 *
 * Auth and the ledger run once, as single processes, for the whole run; the orchestrator is started
 * afresh for each measured segment in the arm's shape, warmed up, then measured. The arms alternate
 * A B B A (A B B A A B … for more rounds), so a machine that drifts, or a database that grows, is
 * spread over both arms alike; the ratio compares their totals. Each segment reports flows/s,
 * latency of the flow and of each call, errors by call, status and code, and what the flows cost:
 * CPU ms of every process (each orchestrator worker on its own), of the PostgreSQL backends per
 * service and of PostgreSQL's own background processes, write transactions, commits and WAL.
 *
 * BENCH_REPLICAS_SWEEP=1,4,8,16,32 adds, per arm, a sweep over those concurrencies with each
 * process's CPU as a share of a core: what saturates first as the load grows (docs/scaling.md).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { type ServiceName, serviceDatabaseUrl } from '@mm/contracts';
import { OPS_CALLER, generateServiceKeys, serviceCredentialEnv } from '@mm/platform';
import { BenchClient } from '../ledger/http-client';
import { type BenchRow, closedLoop, percentile, printTable, stopProcess, writeResults } from '../lib/bench';
import { must, reviseConfig } from '../lib/admin-config';
import { registerFundedCustomers } from '../lib/customers';
import { stopWithRun } from '../lib/run-children';
import { runDatabaseName, withRunDatabase } from '../lib/run-database';
import { checkInvariants } from '../../apps/ledger-wallets/test/invariants';
import { migrateAll } from '../../tools/db';
import { StaffSignIn } from '../../tools/staff-sign-in';
import { type MeteredService, ProcessMeter, type Spent, addSpent, perOperation, spentBetween, utilisation } from './process-meter';

const ADMIN = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = runDatabaseName('replicas');
const list = (v: string) => v.split(',').map((x) => Number(x.trim()));
/**
 * Measured seconds of each segment, and the unmeasured warm-up after each start. The warm-up is long
 * because a cluster's workers each warm up (JIT, per-process caches) on their share of the traffic:
 * after 5 s, two fresh workers measured 0.875 × one process; after 15 s, 0.99–1.12 × in three runs
 * (docs/scaling.md).
 */
const SECONDS = Number(process.env.BENCH_REPLICAS_SECONDS ?? 15);
const WARMUP = Number(process.env.BENCH_REPLICAS_WARMUP ?? 15);
/** Seconds with no load after the warm-up, to read what the processes spend idle. */
const IDLE = Number(process.env.BENCH_REPLICAS_IDLE ?? 3);
/** Measured segments per arm. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_REPLICAS_ROUNDS ?? 2));
const CONCURRENCY = Number(process.env.BENCH_REPLICAS_CONCURRENCY ?? 8);
/** Orchestrator replicas of each arm; the first is the baseline of the ratio. */
const ARMS = list(process.env.BENCH_REPLICAS_ARMS ?? '1,2');
/**
 * Database pool of each orchestrator replica: a number (bench:flow gives 12 to its one), or `split`
 * to share 12 connections between the replicas (at least 4 each).
 */
const POOL = process.env.BENCH_REPLICAS_DB_POOL ?? '12';
const SWEEP = process.env.BENCH_REPLICAS_SWEEP ? list(process.env.BENCH_REPLICAS_SWEEP) : [];
const SWEEP_SECONDS = Number(process.env.BENCH_REPLICAS_SWEEP_SECONDS ?? 8);
const SERVICE_KEYS = generateServiceKeys();
const BASE_PORT = 4700 + Math.floor(Math.random() * 50) * 10;
const PORTS = { orchestrator: BASE_PORT, auth: BASE_PORT + 1, ledger: BASE_PORT + 3, internal: BASE_PORT + 5 };
const ADMIN_USER = { phone: '+237699000009', pin: '4826' };
/** The run's administrator's TOTP secret (base32; a benchmark value, known to everyone). */
const ADMIN_TOTP_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const PIN = '2580';
const AMOUNT = 100;
const url = (port: number) => `http://127.0.0.1:${port}`;

function log(message: string): void {
  process.stdout.write(`[bench:replicas] ${message}\n`);
}

function poolSize(replicas: number): string {
  if (POOL === 'split') return String(Math.max(4, Math.round(12 / replicas)));
  if (!/^\d+$/.test(POOL)) throw new Error(`BENCH_REPLICAS_DB_POOL must be a number or "split", got ${POOL}`);
  return POOL;
}

/** The environment of each service, as bench:flow gives it (so F1 at one replica is comparable). */
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
    REDIS_PREFIX: `mmbench-replicas-${process.pid}`,
    ...serviceCredentialEnv(service, SERVICE_KEYS),
    ...own,
  };
}

async function waitHealthy(name: string, child: ChildProcess, port: number, ready?: () => boolean): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited with ${child.exitCode ?? child.signalCode}`);
    try {
      if ((await fetch(`${url(port)}/health`)).status === 200 && (!ready || ready())) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`${name} did not start`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function startPlain(name: ServiceName, port: number, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = stopWithRun(
    spawn(process.execPath, [join(__dirname, `../../apps/${name}/src/main.js`)], { env, stdio: ['ignore', 'inherit', 'inherit'] }),
  );
  await waitHealthy(name, child, port);
  return child;
}

/** The orchestrator with `replicas` processes: one plain process, or a cluster sharing its two ports. */
async function startOrchestrator(replicas: number, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const own = { ...env, DB_POOL_SIZE: poolSize(replicas) };
  if (replicas === 1) return startPlain('orchestrator', PORTS.orchestrator, own);
  const dir = mkdtempSync(join(tmpdir(), 'mm-bench-replicas-'));
  const readyFile = join(dir, 'ready');
  const child = stopWithRun(
    spawn(process.execPath, [join(__dirname, 'orchestrator-cluster.js')], {
      env: {
        ...own,
        BENCH_CLUSTER_MAIN: join(__dirname, '../../apps/orchestrator/src/main.js'),
        BENCH_CLUSTER_REPLICAS: String(replicas),
        BENCH_CLUSTER_READY_FILE: readyFile,
        BENCH_CLUSTER_LISTENERS: '2',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    }),
  );
  // Healthy, and every worker listening on both ports (one healthy worker answers /health alone).
  await waitHealthy(`orchestrator ×${replicas}`, child, PORTS.orchestrator, () => existsSync(readyFile));
  rmSync(dir, { recursive: true, force: true });
  return child;
}

interface Customer {
  phone: string;
  token: string;
  account: string;
}

type Step = 'create' | 'pin' | 'confirm';

interface ArmTotals {
  replicas: number;
  ok: number;
  errors: number;
  codes: Record<string, number>;
  lat: number[];
  calls: Record<Step, number[]>;
  sec: number;
  spent?: Spent;
  segments: Array<{ round: number; perSec: number; errors: number; utilisation: Record<string, number>; idle: Record<string, number> }>;
}

async function main(): Promise<void> {
  await withRunDatabase(ADMIN, 'replicas', (db) => measure(db.adminUrl), { name: DB });
}

async function measure(adminUrl: string): Promise<void> {
  const started = Date.now();
  // Above the number of cores, something else was running: the numbers are not from a quiet machine.
  const loadAtStart = loadavg();
  await migrateAll(adminUrl);
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  const meter = new ProcessMeter(admin, DB);
  let auth: ChildProcess | undefined;
  let ledgerProcess: ChildProcess | undefined;
  let orchestrator: ChildProcess | undefined;
  let replicasNow = 0;
  let gateway: BenchClient | undefined;
  try {
    const env = {
      auth: serviceEnv('auth', PORTS.auth, adminUrl, {
        BOOTSTRAP_ADMIN_PHONE: ADMIN_USER.phone,
        BOOTSTRAP_ADMIN_PIN: ADMIN_USER.pin,
        BOOTSTRAP_ADMIN_TOTP_SECRET: ADMIN_TOTP_SECRET,
        TRUST_FORWARDED_FOR: 'true',
        // Every bench customer signs in once, from 127.0.0.1 (a sweep to 32 needs 64 of them); the flows never sign in.
        LOGIN_LIMIT_PER_IP: '1000',
      }),
      ledger: serviceEnv('ledger-wallets', PORTS.ledger, adminUrl, {
        AUTH_URL: url(PORTS.auth),
        DB_POOL_SIZE: '20',
        LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
        LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
      }),
      orchestrator: serviceEnv('orchestrator', PORTS.orchestrator, adminUrl, {
        AUTH_URL: url(PORTS.auth),
        LEDGER_URL: url(PORTS.ledger),
        PARTNERS_URL: 'http://127.0.0.1:9',
        WEBHOOK_DISPATCHER_URL: 'http://127.0.0.1:9',
        INTERNAL_PORT: String(PORTS.internal),
        REGISTRATION_MAX_PER_IP_PER_HOUR: '0',
        APPROVALS_ONE_PERSON_ACTIONS: 'CONFIG_CHANGE',
      }),
    };
    auth = await startPlain('auth', PORTS.auth, env.auth);
    ledgerProcess = await startPlain('ledger-wallets', PORTS.ledger, env.ledger);

    /** Starts the orchestrator afresh in the shape asked, with a new client (the old sockets die with it). */
    const restart = async (replicas: number): Promise<BenchClient> => {
      gateway?.close();
      await stopProcess(orchestrator);
      log(`starting the orchestrator: ${replicas} replica${replicas > 1 ? 's (cluster)' : ''}, DB_POOL_SIZE ${poolSize(replicas)} each`);
      orchestrator = await startOrchestrator(replicas, env.orchestrator);
      replicasNow = replicas;
      gateway = new BenchClient(url(PORTS.orchestrator), {}, 64);
      return gateway;
    };
    const metered = (): MeteredService[] => [
      { name: 'auth', pid: auth?.pid },
      { name: 'ledger-wallets', pid: ledgerProcess?.pid },
      { name: 'orchestrator', pid: orchestrator?.pid, cluster: replicasNow > 1 },
    ];

    // ---- Setup (not measured), as bench:flow: velocity room, customers registered and funded.
    let client = await restart(ARMS[0]);
    const ledgerOps = new BenchClient(url(PORTS.ledger), { 'x-service-key': SERVICE_KEYS[OPS_CALLER] }, 8);
    const adminSignIn = new StaffSignIn((path, body) => client.call('POST', path, body)).knowSecret(ADMIN_USER.phone, ADMIN_TOTP_SECRET);
    const adminToken = must(await adminSignIn.login(ADMIN_USER.phone, ADMIN_USER.pin), 200, 'admin login').body.token as string;
    await reviseConfig<{ velocity: Record<string, number> }>(client, adminToken, 'risk', 'benchmark run', (document) => {
      document.velocity = { ...document.velocity, windowSeconds: 60, maxPerCustomer: 10_000, maxPerDevice: 10_000 };
    });
    const most = Math.max(CONCURRENCY, ...SWEEP);
    log(`registering ${2 * most} customers`);
    const customers: Customer[] = await registerFundedCustomers(client, ledgerOps, { count: 2 * most, firstPhone: 81_000_000, pin: PIN });
    ledgerOps.close();

    // ---- F1, as bench:flow runs it: worker w pays from customer w to customer w + concurrency.
    const flow = async (worker: number, concurrency: number, calls?: Record<Step, number[]>): Promise<string | void> => {
      const payer = customers[worker];
      const payee = customers[worker + concurrency];
      const h = { authorization: `Bearer ${payer.token}` };
      const timed = async <T>(step: Step, call: () => Promise<T>): Promise<T> => {
        const t0 = performance.now();
        const res = await call();
        calls?.[step].push(performance.now() - t0);
        return res;
      };
      const fail = (step: Step, res: { status: number; body: { code?: string } }) => `${step}:${res.status}:${String(res.body.code ?? '')}`;
      const created = await timed('create', () =>
        client.call(
          'POST',
          '/api/v1/intents',
          { type: 'TRANSFER', amount: AMOUNT, clientPhone: payee.phone, idempotencyKey: randomUUID() },
          h,
        ),
      );
      if (created.status !== 201) return fail('create', created);
      const id = created.body.intentId as string;
      const pin = await timed('pin', () => client.call('POST', `/api/v1/intents/${id}/verify-pin`, { pin: PIN }, h));
      if (pin.status !== 200) return fail('pin', pin);
      const done = await timed('confirm', () => client.call('POST', `/api/v1/intents/${id}/confirm`, undefined, h));
      if (done.status !== 200) return fail('confirm', done);
    };

    // ---- The comparison: A B B A …, each segment on a freshly started orchestrator after a warm-up.
    const order: number[] = [];
    for (let r = 0; r < ROUNDS; r++) order.push(...(r % 2 === 0 ? ARMS : [...ARMS].reverse()));
    const arms = new Map<number, ArmTotals>();
    let segment = 0;
    for (const replicas of order) {
      segment++;
      client = await restart(replicas);
      await closedLoop(CONCURRENCY, WARMUP, (w) => flow(w, CONCURRENCY));
      const t = arms.get(replicas) ?? {
        replicas,
        ok: 0,
        errors: 0,
        codes: {},
        lat: [],
        calls: { create: [], pin: [], confirm: [] },
        sec: 0,
        segments: [],
      };
      arms.set(replicas, t);
      // What the processes spend with no load at all (timers, pollers, background jobs of each replica).
      const idleFrom = await meter.read(metered());
      await new Promise((r) => setTimeout(r, IDLE * 1000));
      const idle = utilisation(spentBetween(idleFrom, await meter.read(metered())));
      const before = await meter.read(metered());
      const r = await closedLoop(CONCURRENCY, SECONDS, (w) => flow(w, CONCURRENCY, t.calls));
      const after = await meter.read(metered());
      const spent = spentBetween(before, after);
      t.ok += r.ok;
      t.errors += r.errors;
      for (const [code, n] of Object.entries(r.errorCodes)) t.codes[code] = (t.codes[code] ?? 0) + n;
      // One by one: a fast workload has more latencies than a spread fits on the stack.
      for (const ms of r.latenciesMs) t.lat.push(ms);
      t.sec += r.elapsedSec;
      t.spent = addSpent(t.spent, spent);
      t.segments.push({ round: segment, perSec: r.perSec, errors: r.errors, utilisation: utilisation(spent), idle });
      log(
        `segment ${segment}: ${replicas} replica(s): ${r.perSec} flows/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, errors ${JSON.stringify(r.errorCodes)}`,
      );
    }

    const rows: BenchRow[] = [];
    const cost: Record<string, Record<string, number>> = {};
    const base = arms.get(ARMS[0]);
    const perSec = (t: ArmTotals) => Math.round((t.ok / t.sec) * 10) / 10;
    const only429 = (codes: Record<string, number>) =>
      Object.entries(codes)
        .filter(([code]) => code.split(':')[1] !== '429')
        .reduce((a, [, n]) => a + n, 0);
    let otherErrors = 0;
    for (const t of arms.values()) {
      const lat = [...t.lat].sort((a, b) => a - b);
      const ratio = base && base !== t ? perSec(t) / (perSec(base) || 1) : undefined;
      otherErrors += only429(t.codes);
      rows.push({
        workload: `F1 public flow, orchestrator ×${t.replicas}`,
        concurrency: CONCURRENCY,
        committedPerSec: perSec(t),
        ...(ratio !== undefined ? { ratios: { [`×${base?.replicas}`]: ratio } } : {}),
        p50Ms: percentile(lat, 50),
        p99Ms: percentile(lat, 99),
        errors: t.errors,
        errorCodes: t.codes,
        note: `segments ${t.segments.map((s) => s.perSec).join(', ')} flows/s; DB_POOL_SIZE ${poolSize(t.replicas)} per replica`,
      });
      for (const step of ['create', 'pin', 'confirm'] as Step[]) {
        const v = [...t.calls[step]].sort((a, b) => a - b);
        rows.push({
          workload: `  call: ${step}`,
          concurrency: CONCURRENCY,
          committedPerSec: 0,
          p50Ms: percentile(v, 50),
          p99Ms: percentile(v, 99),
          errors: 0,
          note: `${v.length} calls`,
        });
      }
      if (t.spent) cost[`×${t.replicas}`] = perOperation(t.spent, t.ok + t.errors);
    }

    // ---- Optional: what saturates first, per arm, as the concurrency grows.
    const sweep: Array<{
      replicas: number;
      concurrency: number;
      perSec: number;
      p50Ms: number;
      p99Ms: number;
      errors: number;
      codes: Record<string, number>;
      utilisation: Record<string, number>;
      perFlow: Record<string, number>;
    }> = [];
    for (const replicas of SWEEP.length > 0 ? ARMS : []) {
      client = await restart(replicas);
      for (const c of SWEEP) {
        await closedLoop(c, Math.min(WARMUP, 3), (w) => flow(w, c));
        const before = await meter.read(metered());
        const r = await closedLoop(c, SWEEP_SECONDS, (w) => flow(w, c));
        const spent = spentBetween(before, await meter.read(metered()));
        otherErrors += only429(r.errorCodes);
        sweep.push({
          replicas,
          concurrency: c,
          perSec: r.perSec,
          p50Ms: r.p50Ms,
          p99Ms: r.p99Ms,
          errors: r.errors,
          codes: r.errorCodes,
          utilisation: utilisation(spent),
          perFlow: perOperation(spent, r.ok + r.errors),
        });
        log(`sweep ×${replicas} c=${c}: ${r.perSec} flows/s p99 ${r.p99Ms} ms; CPU % of a core ${JSON.stringify(utilisation(spent))}`);
      }
    }

    const inv = await checkInvariants(admin);
    const clean = inv.ledgerGaps === 0 && inv.splitGaps === 0 && inv.intentMismatches === 0 && inv.unbalancedTransactions === 0;
    log(`ledger invariants after the run: ${JSON.stringify(inv)}${clean ? '' : ' — BROKEN'}`);

    printTable(
      `F1 with the orchestrator at ${ARMS.join(' and ')} replicas (flows/s at concurrency ${CONCURRENCY}; arms alternated ${order.join(' ')})`,
      rows,
    );
    printMatrix('Cost per flow (CPU ms by process; database work per flow)', cost);
    printMatrix(
      'CPU by process, % of one core, per measured segment (the machine has 2 cores: 200 %)',
      Object.fromEntries([...arms.values()].flatMap((t) => t.segments.map((s) => [`segment ${s.round} ×${t.replicas}`, s.utilisation]))),
    );
    printMatrix(
      `Idle: CPU % of one core by process over ${IDLE} s with no load, after each warm-up`,
      Object.fromEntries([...arms.values()].flatMap((t) => t.segments.map((s) => [`segment ${s.round} ×${t.replicas}`, s.idle]))),
    );
    if (sweep.length > 0) {
      printMatrix(
        'Sweep: flows/s and CPU % of one core by process, per arm and concurrency',
        Object.fromEntries(
          sweep.map((s) => [
            `×${s.replicas} c=${s.concurrency}`,
            { 'flows/s': s.perSec, 'p99 ms': s.p99Ms, errors: s.errors, ...s.utilisation },
          ]),
        ),
      );
    }
    const ratio = ARMS.length > 1 ? perSec(arms.get(ARMS[1]) as ArmTotals) / (perSec(base as ArmTotals) || 1) : undefined;
    const met = ratio !== undefined && ratio >= 1 && otherErrors === 0;
    const file = writeResults('replicas', rows, {
      concurrency: CONCURRENCY,
      seconds: SECONDS,
      warmupSeconds: WARMUP,
      order,
      dbPoolPerReplica: Object.fromEntries(ARMS.map((n) => [n, poolSize(n)])),
      ratio,
      errorsOtherThan429: otherErrors,
      target: { ratioAtLeast: 1, errorsOtherThan429: 0, met },
      costPerFlow: cost,
      segments: Object.fromEntries([...arms.values()].map((t) => [t.replicas, t.segments])),
      spent: Object.fromEntries([...arms.values()].map((t) => [t.replicas, t.spent])),
      ...(sweep.length > 0 ? { sweep } : {}),
      invariants: inv,
      loadAverage: { atStart: loadAtStart, atEnd: loadavg() },
      elapsedSec: (Date.now() - started) / 1000,
    });
    log(`results: ${file}`);
    if (ratio !== undefined) {
      log(
        `target (F1 with ${ARMS[1]} replicas ≥ 1.0 × F1 with ${ARMS[0]}, no errors but 429s): ${met ? 'met' : 'NOT met'} ` +
          `(${ratio.toFixed(3)}×, ${otherErrors} other errors)`,
      );
    }
    if (!clean) process.exitCode = 1;
  } finally {
    gateway?.close();
    await stopProcess(orchestrator);
    await stopProcess(ledgerProcess);
    await stopProcess(auth);
    await admin.end();
  }
}

/** One line per row label, one column per key found in any row. */
function printMatrix(title: string, data: Record<string, Record<string, number>>): void {
  const columns = [...new Set(Object.values(data).flatMap((c) => Object.keys(c)))];
  const lines = [
    `\n${title}`,
    `| | ${columns.join(' | ')} |`,
    `|---|${columns.map(() => '---').join('|')}|`,
    ...Object.entries(data).map(
      ([label, c]) => `| ${label} | ${columns.map((k) => (c[k] === undefined ? '' : String(c[k]))).join(' | ')} |`,
    ),
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`[bench:replicas] failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
