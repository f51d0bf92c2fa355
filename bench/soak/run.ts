/**
 * `npm run bench:soak` — the platform under a steady mixed load for a long while (docs/performance.md "`bench:soak`",
 * "Soak"): does it keep its throughput and latency, does any service's memory keep growing, and
 * is every payment still right at the end?
 *
 *  1. The five services start as processes from the build, as `npm start` runs them; the population
 *     (customers, agents, merchants, one partner connected to every merchant) is set up through the
 *     gateway, and a partner's webhook receiver runs in its own process on loopback.
 *  2. Capacity: the mix (bench/soak/mix.ts) in a closed loop at concurrency 8 for a short while.
 *  3. Soak: the same mix in an open loop at half that capacity for SOAK_MINUTES: operations are
 *     issued on a fixed schedule whether or not earlier ones have answered, and latency counts from
 *     when each was due. RSS of every service process is sampled throughout.
 *  4. Checks: the ledger's invariants (and Σ balances per currency unchanged by the run), and every
 *     paid order's `order.paid` received exactly once after deduplication.
 *
 * Prints per-minute throughput, p99 per operation kind and errors by code, the memory table, and
 * writes everything as JSON under bench/results/ (writeResults).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { Redis } from 'ioredis';
import { type Invariants, checkInvariants } from '../../apps/ledger-wallets/test/invariants';
import { DEFAULT_ADMIN_URL, migrateAll } from '../../tools/db';
import { type BenchRow, closedLoop, percentile, printTable, stopProcess, writeResults } from '../lib/bench';
import { BenchClient } from '../ledger/http-client';
import { startService } from '../partners/services';
import { BENCH_CALLER_KEY, KEY_SEED, START_ORDER, choosePorts, serviceEnv } from './env';
import { createPopulation } from './fixtures';
import { MIX, Mix, OP_DESCRIPTIONS, OP_KINDS } from './mix';
import { type OpSample, RssSampler, byMinute, memoryTable, memoryTrend, minuteTable, rssMiB } from './stats';
import { withRunDatabase } from '../lib/run-database';

const num = (name: string, fallback: number) => {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number (got ${raw})`);
  return value;
};

const SOAK_MINUTES = num('SOAK_MINUTES', 10);
const CAPACITY_SECONDS = num('SOAK_CAPACITY_SECONDS', 25);
const CAPACITY_CONCURRENCY = num('SOAK_CAPACITY_CONCURRENCY', 8);
const LOAD_FRACTION = num('SOAK_LOAD_FRACTION', 0.5);
const RSS_SAMPLE_SECONDS = num('SOAK_RSS_SAMPLE_SECONDS', 5);
const RSS_GROWTH_PCT = num('SOAK_RSS_GROWTH_PCT', 10);
const MAX_IN_FLIGHT = num('SOAK_MAX_IN_FLIGHT', 256);
const WEBHOOK_WAIT_SECONDS = num('SOAK_WEBHOOK_WAIT_SECONDS', 120);
const FAIL_ON_GROWTH = process.env.SOAK_FAIL_ON_GROWTH === 'true';
const SIZES = {
  customers: num('SOAK_CUSTOMERS', 40),
  agents: num('SOAK_AGENTS', 4),
  merchants: num('SOAK_MERCHANTS', 4),
};
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const WARMUP_SECONDS = 5;

const url = (port: number) => `http://127.0.0.1:${port}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function log(message: string): void {
  process.stdout.write(`[bench:soak] ${message}\n`);
}

/** Every 200 the receiver sent for an `order.paid`, per order and event id (duplicates included). */
class Deliveries {
  /** orderId → eventId → deliveries answered 200 */
  readonly byOrder = new Map<string, Map<string, number>>();
  /** eventId → first 200 minus the commit time the event carries (ms) */
  readonly latency = new Map<string, number>();

  add(eventId: string, at: number, paidAt: number, orderId: string): void {
    const events = this.byOrder.get(orderId) ?? new Map<string, number>();
    events.set(eventId, (events.get(eventId) ?? 0) + 1);
    this.byOrder.set(orderId, events);
    if (!this.latency.has(eventId)) this.latency.set(eventId, at - paidAt);
  }
}

/** The partner's server: bench/partners' receiver child (the example receiver), in its own process. */
async function startReceiver(deliveries: Deliveries): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(join(__dirname, '../partners/receiver-child.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`webhook receiver exited with ${code}`)));
    child.on('message', (message: { port?: number; acks?: Array<[string, number, number, string]> }) => {
      if (message.port) resolve(message.port);
      for (const [eventId, at, paidAt, orderId] of message.acks ?? []) deliveries.add(eventId, at, paidAt, orderId);
    });
  });
  return { child, url: `http://127.0.0.1:${port}/webhooks` };
}

interface OpenLoopResult {
  samples: OpSample[];
  elapsedMs: number;
  maxInFlight: number;
  /** operations still unanswered when the drain gave up */
  abandoned: number;
}

/**
 * Issues operation n at start + n / rate, whatever the earlier ones are doing (open loop), up to
 * MAX_IN_FLIGHT at once: beyond that an operation is shed and counted as an error, so an overloaded
 * platform shows up as errors rather than as a generator quietly slowing down.
 */
async function openLoop(mix: Mix, rate: number, durationMs: number): Promise<OpenLoopResult> {
  const samples: OpSample[] = [];
  const pending = new Set<Promise<void>>();
  const interval = 1000 / rate;
  const t0 = performance.now();
  let issued = 0;
  let maxInFlight = 0;
  for (;;) {
    const now = performance.now() - t0;
    if (now >= durationMs) break;
    for (; issued * interval <= now && issued * interval < durationMs; issued++) {
      const dueMs = issued * interval;
      const kind = mix.next();
      if (pending.size >= MAX_IN_FLIGHT) {
        samples.push({ kind, dueMs, latencyMs: now - dueMs, code: 'SHED_IN_FLIGHT_CAP' });
        continue;
      }
      const p: Promise<void> = mix
        .run(kind)
        .catch((error: unknown) => `THROWN:${((error as NodeJS.ErrnoException).code ?? (error as Error).message).slice(0, 40)}`)
        .then((code) => {
          samples.push({ kind, dueMs, latencyMs: performance.now() - t0 - dueMs, ...(code ? { code } : {}) });
          pending.delete(p);
        });
      pending.add(p);
      maxInFlight = Math.max(maxInFlight, pending.size);
    }
    await sleep(Math.max(1, Math.min(50, issued * interval - (performance.now() - t0))));
  }
  const elapsedMs = performance.now() - t0;
  const drained = await Promise.race([Promise.all([...pending]).then(() => true), sleep(60_000).then(() => false)]);
  return { samples, elapsedMs, maxInFlight, abandoned: drained ? 0 : pending.size };
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadAtStart = loadavg();
  log(
    `soak ${SOAK_MINUTES} min at ${LOAD_FRACTION * 100} % of the capacity measured over ${CAPACITY_SECONDS} s at c=${CAPACITY_CONCURRENCY}` +
      ` (load average now ${loadAtStart.map((l) => l.toFixed(2)).join(' ')})`,
  );
  // This run's own database, dropped at the end whatever happened (Ctrl-C included) unless kept: never another run's.
  const keep = process.env.SOAK_KEEP_DB === 'true';
  await withRunDatabase(
    ADMIN_URL,
    'soak',
    async (db) => {
      if (keep) log(`database kept afterwards: ${db.name}`);
      await soakOn(db.adminUrl, started, loadAtStart);
    },
    { keep },
  );
}

async function soakOn(dbUrl: string, started: number, loadAtStart: number[]): Promise<void> {
  await migrateAll(dbUrl);
  const redisPrefix = `mmbench:soak:${randomUUID().slice(0, 8)}`;
  const ports = await choosePorts();
  const deliveries = new Deliveries();
  const receiver = await startReceiver(deliveries);
  const sql = new Client({ connectionString: dbUrl });
  sql.on('error', () => undefined);
  await sql.connect();

  const children: Array<{ service: string; child: ChildProcess }> = [];
  const crashed: string[] = [];
  let stopping = false;
  try {
    // ---- Platform
    const runEnv = { webhookKey: randomBytes(32).toString('base64'), pseudonymSecret: randomBytes(32).toString('hex') };
    for (const { service, port } of START_ORDER) {
      const child = await startService(service, ports[port], {
        adminUrl: dbUrl,
        redisUrl: REDIS_URL,
        redisPrefix,
        serviceKey: KEY_SEED,
        extra: serviceEnv(service, ports, runEnv),
      });
      child.once('exit', (code, signal) => {
        if (stopping) return;
        crashed.push(`${service} (${code ?? signal})`);
        log(`${service} exited during the run (${code ?? signal})`);
      });
      children.push({ service, child });
    }
    log(`services up on ${JSON.stringify(ports)}`);
    const bootRss = Object.fromEntries(children.map(({ service, child }) => [service, rssMiB(child.pid!)]));
    const gateway = new BenchClient(url(ports.orchestrator), {}, MAX_IN_FLIGHT);
    const ledger = new BenchClient(url(ports.ledger), { 'x-service-key': BENCH_CALLER_KEY }, 8);

    // ---- Population
    const people = await createPopulation(
      gateway,
      ledger,
      SIZES,
      { receiverUrl: receiver.url, onWebhookSecret: (secret) => receiver.child.send({ secrets: [secret] }) },
      log,
    );
    const totalsBefore = (await checkInvariants(sql)).totals;
    const mix = new Mix(gateway, people);

    // ---- Capacity (closed loop), after a short warm-up
    await closedLoop(CAPACITY_CONCURRENCY, WARMUP_SECONDS, () => mix.run(mix.next()));
    const capacity = await closedLoop(CAPACITY_CONCURRENCY, CAPACITY_SECONDS, () => mix.run(mix.next()));
    const rate = Math.max(0.5, capacity.perSec * LOAD_FRACTION);
    log(
      `capacity: ${capacity.perSec} ops/s at c=${CAPACITY_CONCURRENCY} (p50 ${capacity.p50Ms} ms, p99 ${capacity.p99Ms} ms, ` +
        `errors ${JSON.stringify(capacity.errorCodes)}); soak rate ${rate.toFixed(1)} ops/s`,
    );

    // ---- Soak (open loop) with RSS sampling
    for (const k of Object.keys(mix.calls)) delete mix.calls[k];
    const pids = Object.fromEntries(children.map(({ service, child }) => [service, child.pid!]));
    const sampler = new RssSampler(pids);
    sampler.start(RSS_SAMPLE_SECONDS);
    const soakStart = Date.now();
    const loadAtSoakStart = loadavg();
    // The 1-minute load average at the end of each minute: on a shared machine, what else was running.
    const loadByMinute: number[] = [];
    const minuteTimer = setInterval(() => {
      loadByMinute.push(loadavg()[0]);
      log(`… ${loadByMinute.length} min of ${SOAK_MINUTES}`);
    }, 60_000);
    const soak = await openLoop(mix, rate, SOAK_MINUTES * 60_000);
    clearInterval(minuteTimer);
    sampler.stop();
    const loadAtEnd = loadavg();
    log(
      `soak done: ${soak.samples.length} operations, at most ${soak.maxInFlight} in flight, ${soak.abandoned} unanswered after the drain`,
    );

    // ---- Webhooks: every order the platform recorded as paid, delivered once (after deduplication)
    const paidInDb = async () =>
      new Set((await sql.query<{ id: string }>(`SELECT id FROM partners.orders WHERE status = 'paid'`)).rows.map((r) => r.id));
    const deadline = Date.now() + WEBHOOK_WAIT_SECONDS * 1000;
    let paid = await paidInDb();
    while (Date.now() < deadline) {
      const everyClientPaidRecorded = [...mix.paidOrders].every((id) => paid.has(id));
      if (everyClientPaidRecorded && [...paid].every((id) => deliveries.byOrder.has(id))) break;
      await sleep(1_000);
      paid = await paidInDb();
    }
    await sleep(3_000); // a late duplicate (a retry racing an ack) would land now
    paid = await paidInDb();
    const ledgerQrPayments = Number(
      (
        await sql.query<{ n: string }>(
          `SELECT count(*) AS n FROM ledger.transaction_intents WHERE status = 'SUCCEEDED' AND qr_token LIKE 'pqr\\_%'`,
        )
      ).rows[0].n,
    );
    const webhooks = {
      paidOrders: paid.size,
      paidSeenByClients: mix.paidOrders.size,
      ledgerQrPayments,
      clientPaidNotRecorded: [...mix.paidOrders].filter((id) => !paid.has(id)).length,
      deliveredOnce: [...paid].filter((id) => deliveries.byOrder.get(id)?.size === 1).length,
      missing: [...paid].filter((id) => !deliveries.byOrder.has(id)).length,
      /** orders with more than one distinct order.paid event id: a second event, not a redelivery */
      duplicated: [...paid].filter((id) => (deliveries.byOrder.get(id)?.size ?? 0) > 1).length,
      /** order.paid for an order that is not paid */
      unexpected: [...deliveries.byOrder.keys()].filter((id) => !paid.has(id)).length,
      /** the same event id answered 200 more than once (at-least-once delivery; the receiver deduplicates) */
      redeliveries: [...deliveries.byOrder.values()].reduce((n, events) => n + [...events.values()].reduce((m, c) => m + c - 1, 0), 0),
    };
    const webhooksOk =
      webhooks.missing === 0 &&
      webhooks.duplicated === 0 &&
      webhooks.unexpected === 0 &&
      webhooks.clientPaidNotRecorded === 0 &&
      webhooks.ledgerQrPayments === webhooks.paidOrders;

    // ---- Ledger invariants
    const inv: Invariants = await checkInvariants(sql);
    const totalsUnchanged = JSON.stringify(inv.totals) === JSON.stringify(totalsBefore);
    const invariantsOk =
      inv.ledgerGaps === 0 && inv.splitGaps === 0 && inv.intentMismatches === 0 && inv.unbalancedTransactions === 0 && totalsUnchanged;

    // ---- Report
    const soakSec = soak.elapsedMs / 1000;
    if (loadByMinute.length < Math.ceil(SOAK_MINUTES)) loadByMinute.push(loadAtEnd[0]); // a last, partial minute
    const minutes = byMinute(soak.samples, SOAK_MINUTES * 60_000, loadByMinute);
    const trends = Object.entries(sampler.series).map(([service, points]) => ({
      ...memoryTrend(service, pids[service], points, RSS_GROWTH_PCT),
      bootMiB: bootRss[service],
    }));
    const growing = trends.filter((t) => t.growing).map((t) => t.service);
    const ok = soak.samples.filter((s) => !s.code).length;
    const rows: BenchRow[] = [
      {
        workload: 'capacity: the mix, closed loop',
        concurrency: CAPACITY_CONCURRENCY,
        committedPerSec: capacity.perSec,
        p50Ms: capacity.p50Ms,
        p99Ms: capacity.p99Ms,
        errors: capacity.errors,
        errorCodes: capacity.errorCodes,
        note: `${CAPACITY_SECONDS} s`,
      },
      {
        workload: `soak: the mix, open loop at ${rate.toFixed(1)} ops/s`,
        concurrency: soak.maxInFlight,
        committedPerSec: Math.round((ok / soakSec) * 10) / 10,
        ratios: { capacity: ok / soakSec / (capacity.perSec || 1) },
        p50Ms: percentile(
          soak.samples.map((s) => s.latencyMs).sort((a, b) => a - b),
          50,
        ),
        p99Ms: percentile(
          soak.samples.map((s) => s.latencyMs).sort((a, b) => a - b),
          99,
        ),
        errors: soak.samples.length - ok,
        errorCodes: countCodes(soak.samples),
        note: `${SOAK_MINUTES} min; concurrency column = most in flight`,
      },
    ];
    for (const kind of OP_KINDS) {
      const of = soak.samples.filter((s) => s.kind === kind);
      const lat = of.map((s) => s.latencyMs).sort((a, b) => a - b);
      rows.push({
        workload: `  ${kind} (${MIX[kind]} %)`,
        concurrency: 0,
        committedPerSec: Math.round((of.filter((s) => !s.code).length / soakSec) * 10) / 10,
        p50Ms: percentile(lat, 50),
        p99Ms: percentile(lat, 99),
        errors: of.filter((s) => s.code).length,
        errorCodes: countCodes(of),
        note: OP_DESCRIPTIONS[kind],
      });
    }
    const hookLatency = [...paid]
      .flatMap((id) => [...(deliveries.byOrder.get(id)?.keys() ?? [])])
      .map((eventId) => deliveries.latency.get(eventId))
      .filter((v): v is number => v !== undefined)
      .sort((a, b) => a - b);
    rows.push({
      workload: 'order.paid: ledger commit → receiver 200',
      concurrency: 0,
      committedPerSec: 0,
      p50Ms: percentile(hookLatency, 50),
      p99Ms: percentile(hookLatency, 99),
      errors: webhooks.missing + webhooks.duplicated + webhooks.unexpected,
      note: `${hookLatency.length} orders (capacity and soak phases)`,
    });

    process.stdout.write(minuteTable(minutes));
    process.stdout.write(memoryTable(trends, RSS_GROWTH_PCT));
    printTable('Soak summary (committed/s over the soak; latency from when each operation was due)', rows);
    const avg = (l: number[]) => l.map((v) => v.toFixed(2)).join(' ');
    log(
      `load average (1, 5, 15 min) at soak start ${avg(loadAtSoakStart)}, at soak end ${avg(loadAtEnd)}` +
        ` on ${cpus().length} cores: above that, something else was running`,
    );
    log(`webhooks: ${JSON.stringify(webhooks)} — ${webhooksOk ? 'every paid order delivered exactly once' : 'FAILED'}`);
    log(
      `ledger invariants: ${JSON.stringify(inv)}; Σ per currency ${totalsUnchanged ? 'unchanged' : 'CHANGED'} — ${invariantsOk ? 'clean' : 'BROKEN'}`,
    );
    log(`memory: ${growing.length === 0 ? 'no service keeps growing' : `still growing at the end: ${growing.join(', ')}`}`);
    if (crashed.length > 0) log(`services that exited during the run: ${crashed.join(', ')}`);
    const file = writeResults('soak', rows, {
      parameters: {
        soakMinutes: SOAK_MINUTES,
        capacitySeconds: CAPACITY_SECONDS,
        capacityConcurrency: CAPACITY_CONCURRENCY,
        loadFraction: LOAD_FRACTION,
        rateOpsPerSec: rate,
        maxInFlight: MAX_IN_FLIGHT,
        rssSampleSeconds: RSS_SAMPLE_SECONDS,
        rssGrowthPct: RSS_GROWTH_PCT,
        population: SIZES,
        mix: MIX,
      },
      loadAverage: { runStart: loadAtStart, soakStart: loadAtSoakStart, soakEnd: loadAtEnd },
      minutes,
      calls: Object.fromEntries(
        Object.entries(mix.calls).map(([k, v]) => {
          const sorted = [...v].sort((a, b) => a - b);
          return [k, { n: sorted.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) }];
        }),
      ),
      memory: { trends, samples: sampler.series },
      webhooks,
      invariants: { ...inv, totalsBefore, totalsUnchanged },
      crashed,
      abandoned: soak.abandoned,
      verdicts: { invariantsOk, webhooksOk, memoryGrowing: growing, crashed: crashed.length > 0 },
      ports,
      elapsedSec: (Date.now() - started) / 1000,
      soakStartedAt: new Date(soakStart).toISOString(),
    });
    log(`results: ${file}`);
    if (!invariantsOk || !webhooksOk || crashed.length > 0 || soak.abandoned > 0 || (FAIL_ON_GROWTH && growing.length > 0))
      process.exitCode = 1;
  } finally {
    stopping = true;
    for (const { child } of children.reverse()) await stopProcess(child);
    receiver.child.disconnect();
    await sql.end();
    const redis = new Redis(REDIS_URL);
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
    redis.disconnect();
  }
}

function countCodes(samples: OpSample[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) if (s.code) out[s.code] = (out[s.code] ?? 0) + 1;
  return out;
}

main().catch((error: unknown) => {
  process.stderr.write(`[bench:soak] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
