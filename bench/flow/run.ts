/**
 * `npm run bench:flow` — the public money flow through the gateway, beside the ledger's own
 * transition in the same run (issue 9 "Benchmark"):
 *   - W1 at the ledger: uncontended transfers at the internal transition endpoint (as bench:ledger),
 *     and W1k, the very request a confirm sends (X-Idempotency-Key, fee to FEE_COLLECTION);
 *   - F1: create → verify-pin → confirm through the orchestrator's public listener, with real auth
 *     (PIN hash, consent proof), limits, risk, fee quote, SMS outbox: transfers/s and p50/p99 of
 *     each call.
 * Concurrency 8. Goal: one public transfer costs at most 3× the ledger's own transition (W1/F1).
 * Auth, ledger and orchestrator run as separate processes from the build (dist/), as `npm start` does.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { type ServiceName, serviceDatabaseUrl } from '@mm/contracts';
import { BenchClient, type HttpResult } from '../ledger/http-client';
import { type PoolIntent, createFundedAccounts, createReadyIntents, randomPairs } from '../ledger/fixtures';
import { type BenchRow, closedLoop, percentile, printTable, writeResults } from '../lib/bench';
import { checkInvariants } from '../../apps/ledger-wallets/test/invariants';
import { migrateAll, withDatabase } from '../../tools/db';

const ADMIN = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = 'mm_bench_flow';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const CONCURRENCY = 8;
const SERVICE_KEY = randomBytes(32).toString('hex');
const BASE_PORT = 4200 + Math.floor(Math.random() * 50) * 10;
const PORTS = { orchestrator: BASE_PORT, auth: BASE_PORT + 1, ledger: BASE_PORT + 3, internal: BASE_PORT + 5 };
const ADMIN_USER = { phone: '+237699000009', pin: '4826' };
const PIN = '2580';
const AMOUNT = 100;

function log(message: string): void {
  process.stdout.write(`[bench:flow] ${message}\n`);
}

async function adminQuery(sql: string): Promise<void> {
  const c = new Client({ connectionString: ADMIN });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

async function startService(
  service: ServiceName,
  main: string,
  port: number,
  adminUrl: string,
  extra: Record<string, string>,
): Promise<ChildProcess> {
  // BENCH_CPU_PROF=<dir>: each service writes a V8 CPU profile there when it stops (where the time goes).
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`, `--cpu-prof-name=${main}.cpuprofile`]
    : [];
  const child = spawn(process.execPath, [...profile, join(__dirname, `../../apps/${main}/src/main.js`)], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: serviceDatabaseUrl(adminUrl, service),
      DB_POOL_SIZE: '12',
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_PREFIX: `mmbench-flow-${process.pid}`,
      INTERNAL_SERVICE_KEY: SERVICE_KEY,
      ...extra,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${service} exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200) return child;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`${service} did not start`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

function ok(res: HttpResult, status: number, what: string): HttpResult {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

interface Customer {
  phone: string;
  token: string;
  account: string;
}

async function main(): Promise<void> {
  const started = Date.now();
  const rows: BenchRow[] = [];
  await adminQuery(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  const adminUrl = withDatabase(ADMIN, DB);
  await migrateAll(adminUrl);
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();

  const children: ChildProcess[] = [];
  try {
    const url = (port: number) => `http://127.0.0.1:${port}`;
    children.push(
      await startService('auth', 'auth', PORTS.auth, adminUrl, {
        BOOTSTRAP_ADMIN_PHONE: ADMIN_USER.phone,
        BOOTSTRAP_ADMIN_PIN: ADMIN_USER.pin,
        TRUST_FORWARDED_FOR: 'true',
      }),
    );
    children.push(
      await startService('ledger-wallets', 'ledger-wallets', PORTS.ledger, adminUrl, {
        AUTH_URL: url(PORTS.auth),
        DB_POOL_SIZE: '20',
        LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
        LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
      }),
    );
    children.push(
      await startService('orchestrator', 'orchestrator', PORTS.orchestrator, adminUrl, {
        AUTH_URL: url(PORTS.auth),
        LEDGER_URL: url(PORTS.ledger),
        PARTNERS_URL: 'http://127.0.0.1:9',
        WEBHOOK_DISPATCHER_URL: 'http://127.0.0.1:9',
        INTERNAL_PORT: String(PORTS.internal),
      }),
    );
    const gateway = new BenchClient(url(PORTS.orchestrator), {}, 64);
    const ledger = new BenchClient(url(PORTS.ledger), { 'x-service-key': SERVICE_KEY }, 64);

    // ---- Setup (not measured): velocity room for a benchmark, customers registered and funded.
    const adminToken = ok(await gateway.call('POST', '/api/auth/login', ADMIN_USER), 200, 'admin login').body.token as string;
    const auth = { authorization: `Bearer ${adminToken}` };
    const risk = ok(await gateway.call('GET', '/api/config/risk', undefined, auth), 200, 'risk config').body as {
      version: number;
      document: { velocity: Record<string, number> };
    };
    risk.document.velocity = { ...risk.document.velocity, windowSeconds: 60, maxPerCustomer: 10_000, maxPerDevice: 10_000 };
    ok(
      await gateway.call(
        'POST',
        '/api/config/risk/versions',
        { baseVersion: risk.version, reason: 'benchmark run', document: risk.document },
        auth,
      ),
      201,
      'risk change',
    );
    log(`registering ${2 * CONCURRENCY} customers`);
    const customers: Customer[] = [];
    for (let i = 0; i < 2 * CONCURRENCY; i++) {
      const phone = `+2376${String(80_000_000 + i)}`;
      const reg = ok(
        await gateway.call('POST', '/api/orchestrator/auth/register', {
          phone,
          pin: PIN,
          firstName: `Bench${i}`,
          lastName: 'User',
          countryCode: 'CM',
        }),
        201,
        'register',
      );
      const token = ok(await gateway.call('POST', '/api/auth/login', { phone, pin: PIN }), 200, 'login').body.token as string;
      const account = (reg.body.accounts as Record<string, string>).XAF;
      ok(
        await ledger.call('PUT', `/v1/accounts/${account}/balance/add`, { amount: 150_000, reason: 'bench funding', createdBy: 'bench' }),
        200,
        'fund',
      );
      customers.push({ phone, token, account });
    }

    // ---- W1 / W1k at the ledger, on SQL fixtures (as bench:ledger does).
    const accounts = await createFundedAccounts(admin, 2_000, 'USER', 'bench-flow-');
    const feeAccount = (await admin.query(`SELECT id FROM ledger.accounts WHERE account_type = 'fee_collection' AND currency = 'XAF'`))
      .rows[0].id;
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
    for (const [name, withKey] of [
      ['W1 ledger transition→SUCCEEDED (no key, no fee)', false],
      ['W1k ledger transition as confirm sends it (key, fee)', true],
    ] as const) {
      const pool = await createReadyIntents(admin, randomPairs(accounts, 20_000));
      await admin.query('CHECKPOINT');
      let next = 0;
      const r = await closedLoop(CONCURRENCY, SECONDS, async () => {
        const intent = pool[next++];
        if (!intent) return 'POOL_EXHAUSTED';
        const res = await ledger.call(
          'POST',
          `/v1/internal/intents/${intent.id}/transition`,
          confirm(intent, withKey),
          withKey ? { 'x-idempotency-key': `confirm:${intent.id}` } : {},
        );
        return res.status === 200 ? undefined : String(res.body.code ?? res.status);
      });
      log(`${name}: ${r.perSec}/s p50 ${r.p50Ms} p99 ${r.p99Ms} errors ${JSON.stringify(r.errorCodes)}`);
      rows.push({
        workload: name,
        concurrency: CONCURRENCY,
        committedPerSec: r.perSec,
        p50Ms: r.p50Ms,
        p99Ms: r.p99Ms,
        errors: r.errors,
        errorCodes: r.errorCodes,
      });
    }
    const w1 = rows[0].committedPerSec;

    // ---- F1: the public flow. Worker w pays from customer w to customer w + 8, with its own token.
    const latencies: Record<'create' | 'pin' | 'confirm', number[]> = { create: [], pin: [], confirm: [] };
    const timed = async (step: keyof typeof latencies, call: () => Promise<HttpResult>) => {
      const t0 = performance.now();
      const res = await call();
      latencies[step].push(performance.now() - t0);
      return res;
    };
    const flow = async (worker: number): Promise<string | void> => {
      const payer = customers[worker];
      const payee = customers[worker + CONCURRENCY];
      const h = { authorization: `Bearer ${payer.token}` };
      const created = await timed('create', () =>
        gateway.call(
          'POST',
          '/api/v1/intents',
          { type: 'TRANSFER', amount: AMOUNT, clientPhone: payee.phone, idempotencyKey: randomUUID() },
          h,
        ),
      );
      if (created.status !== 201) return `create:${String(created.body.code ?? created.status)}`;
      const id = created.body.intentId as string;
      const pin = await timed('pin', () => gateway.call('POST', `/api/v1/intents/${id}/verify-pin`, { pin: PIN }, h));
      if (pin.status !== 200) return `pin:${String(pin.body.code ?? pin.status)}`;
      const done = await timed('confirm', () => gateway.call('POST', `/api/v1/intents/${id}/confirm`, undefined, h));
      return done.status === 200 ? undefined : `confirm:${String(done.body.code ?? done.status)}`;
    };
    for (let w = 0; w < CONCURRENCY; w++) await flow(w); // warm-up: one flow per worker
    for (const k of Object.keys(latencies) as Array<keyof typeof latencies>) latencies[k] = [];
    const f = await closedLoop(CONCURRENCY, SECONDS, (worker) => flow(worker));
    log(`F1 public flow: ${f.perSec} transfers/s p50 ${f.p50Ms} p99 ${f.p99Ms} errors ${JSON.stringify(f.errorCodes)}`);
    const ratio = f.perSec > 0 ? w1 / f.perSec : Infinity;
    rows.push({
      workload: 'F1 public flow create→verify-pin→confirm',
      concurrency: CONCURRENCY,
      committedPerSec: f.perSec,
      ratios: { W1: f.perSec / (w1 || 1) },
      p50Ms: f.p50Ms,
      p99Ms: f.p99Ms,
      errors: f.errors,
      errorCodes: f.errorCodes,
      note: `costs ${ratio.toFixed(2)}× W1 (goal ≤ 3×)`,
    });
    for (const step of ['create', 'pin', 'confirm'] as const) {
      const sorted = [...latencies[step]].sort((a, b) => a - b);
      rows.push({
        workload: `  F1 call: ${step === 'pin' ? 'verify-pin' : step}`,
        concurrency: CONCURRENCY,
        committedPerSec: 0,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        errors: 0,
        note: `${sorted.length} calls`,
      });
    }

    const inv = await checkInvariants(admin);
    const clean = inv.ledgerGaps === 0 && inv.splitGaps === 0 && inv.intentMismatches === 0 && inv.unbalancedTransactions === 0;
    log(`ledger invariants after the run: ${JSON.stringify(inv)}${clean ? '' : ' — BROKEN'}`);
    printTable('Public flow benchmark (transfers/s at concurrency 8; W1 = the ledger transition alone, same run)', rows);
    const file = writeResults('flow', rows, {
      seconds: SECONDS,
      invariants: inv,
      ratioToW1: ratio,
      elapsedSec: (Date.now() - started) / 1000,
    });
    log(`results: ${file}`);
    log(`goal (public flow ≤ 3× the ledger transition): ${ratio <= 3 ? 'met' : 'NOT met'} (${ratio.toFixed(2)}×)`);
    if (!clean) process.exitCode = 1;
  } finally {
    for (const child of children.reverse()) await stop(child);
    await admin.end();
    await adminQuery(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`[bench:flow] failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
