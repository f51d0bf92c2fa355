/**
 * `npm run bench:ledger` — the ledger's benchmark (docs/performance.md): baselines B0 (pgbench TPC-B scale 10),
 * B0-hot (scale 1), B1 (our transfer SQL in a pgbench script) and B2 (the HTTP floor: a bare Fastify route
 * sending the service's confirm statement, 1/8/32) in the same run, then W1
 * (uncontended transfers at the internal transition endpoint, concurrency 1/8/32), W2 (one hot
 * merchant account, 8/32), W3 (30% repeated idempotency keys, sequential and concurrent) and W4
 * (the PIN step with its consent proof, 1/8; proofs signed before the measured loop by a stand-in
 * for auth whose key set the app fetches once), ending with the ledger invariant check. The app runs as its own process (dist main.js).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { serviceDatabaseUrl } from '@mm/contracts';
import { generateServiceKeys, serviceCredentialEnv } from '@mm/platform';
import { type BenchRow, closedLoop, pgbench, printTable, stopProcess, writeResults } from '../lib/bench';
import { migrateAll, withDatabase } from '../../tools/db';
import { b1Script, createB1Tables } from './b1-script';
import { profileArgs, profileDir, reportNewestProfile } from './profile';
import { startHttpFloor } from './http-floor';
import { ConfirmTally, type ConfirmTarget, type MeterScope, PgbenchTally, alternate, stageSummary } from './rounds';
import { BenchClient } from './http-client';
import { type ConsentSigner, startConsentSigner } from '../../apps/ledger-wallets/test/consent-signer';
import { checkInvariants } from '../../apps/ledger-wallets/test/invariants';
import { AMOUNT, BENCH_INITIATOR, type PoolIntent, createFundedAccounts, createReadyIntents, randomPairs } from './fixtures';
import { serverSql } from '../lib/server-sql';

const ADMIN = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** BENCH_DB_SUFFIX: a private pair of databases, so two runs on one server (two checkouts) do not drop each other's. */
const DB_SUFFIX = (process.env.BENCH_DB_SUFFIX ?? '').replace(/[^a-z0-9_]/gi, '').toLowerCase();
const LEDGER_DB = `mm_bench_ledger${DB_SUFFIX ? `_${DB_SUFFIX}` : ''}`;
const PGBENCH_DB = `mm_bench_pgbench${DB_SUFFIX ? `_${DB_SUFFIX}` : ''}`;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 5_000);
/** One key per caller for this run: the bench drives the ledger as the orchestrator does. */
const KEYS = generateServiceKeys();

function log(message: string): void {
  process.stdout.write(`[bench:ledger] ${message}\n`);
}

/**
 * `npm run bench:ledger -- --only W1,W1F`: only these workloads (B0, B1, B2, W1, W1F, W2, W3, W4); a
 * ratio is printed only when its baseline ran too (`--only B0,B1,W1`). The invariant check always runs.
 */
const ONLY = ((): Set<string> | undefined => {
  const k = process.argv.indexOf('--only');
  return k >= 0 && process.argv[k + 1] ? new Set(process.argv[k + 1].split(',').map((w) => w.trim().toUpperCase())) : undefined;
})();
const want = (workload: string): boolean => !ONLY || ONLY.has(workload);
/** `BENCH_W1_CONCURRENCY=1,8`: W1 at these concurrencies only (default 1, 8 and 32), for short A/B runs. */
const W1_CONCURRENCY = (process.env.BENCH_W1_CONCURRENCY ?? '1,8,32').split(',').map(Number);
/** BENCH_PROFILE=1: the ledger process writes a CPU profile there; its summary is printed at the end. */
const PROFILE_DIR = profileDir();
/**
 * `BENCH_ROUNDS` (3): each baseline and its workloads run this many segments of BENCH_SECONDS / rounds
 * seconds, alternated (rounds.ts), so a drifting machine moves them together.
 */
const ROUNDS = ((): number => {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`BENCH_ROUNDS must be a whole number ≥ 1, not ${process.env.BENCH_ROUNDS}`);
  return rounds;
})();
const SEGMENT = Math.max(1, Math.round(SECONDS / ROUNDS));
/** Fee of every payment of W1F, credited to the FEE_COLLECTION account of the currency. */
const FEE = 2;

function pgbenchUrlArgs(db: string): string[] {
  const u = new URL(withDatabase(ADMIN, db));
  return ['-h', u.hostname, '-p', u.port || '5432', '-U', decodeURIComponent(u.username || 'postgres'), db];
}

async function baselineTpcb(scale: number, clients: number): Promise<number> {
  const r = await pgbench(['-M', 'prepared', '-c', String(clients), '-j', '2', '-T', String(SECONDS), ...pgbenchUrlArgs(PGBENCH_DB)]);
  log(`pgbench TPC-B scale ${scale} c=${clients}: ${r.tps.toFixed(1)} tps`);
  return r.tps;
}

async function startApp(port: number, consentJwksUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...profileArgs(PROFILE_DIR), join(__dirname, '../../apps/ledger-wallets/src/main.js')], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: serviceDatabaseUrl(withDatabase(ADMIN, LEDGER_DB), 'ledger-wallets'),
      DB_POOL_SIZE: '20',
      REDIS_PREFIX: `mmbench:${randomUUID().slice(0, 8)}`,
      ...serviceCredentialEnv('ledger-wallets', KEYS),
      LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
      LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
      LEDGER_CONSENT_JWKS_URL: consentJwksUrl,
      // Production refuses to boot without an anchor key: one per run, never a committed secret. The
      // anchor job stays off like the integrity schedule: its first pass would walk every chain of
      // the fixtures in the middle of a measurement (docs/ledger-chain.md).
      LEDGER_CHAIN_ANCHOR_KEY: randomBytes(32).toString('hex'),
      LEDGER_CHAIN_ANCHOR_INTERVAL_MS: '0',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  // A loaded machine can take a while; a process that never answered is stopped, not left behind.
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      if (res.status === 200) return child;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('ledger-wallets did not start');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Fresh statistics, no dead rows from the fixture writes, and no checkpoint due mid-measurement. */
async function settle(admin: Client): Promise<void> {
  await admin.query('VACUUM ANALYZE ledger.transaction_intents, ledger.accounts');
  await admin.query('CHECKPOINT');
}

async function retriesSoFar(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  let total = 0;
  for (const m of text.matchAll(/^ledger_transaction_retries_total\{[^}]*\} (\d+)/gm)) total += Number(m[1]);
  return total;
}

/** The confirm of one pool intent; `fee` is credited to the FEE_COLLECTION account of the currency (the default). */
function confirmBody(intent: PoolIntent, fee = 0) {
  return {
    toStatus: 'SUCCEEDED',
    actor: { id: 'bench' },
    executionContext: {
      sourceAccountId: intent.source,
      destinationAccountId: intent.destination,
      amount: AMOUNT,
      currency: 'XAF',
      ...(fee > 0 ? { fee: { amount: fee } } : {}),
      metadata: { typeCode: 'P2P' },
    },
  };
}

/** What the measured workloads share: the database, and the rows and stages they report into. */
interface RunState {
  admin: Client;
  rows: BenchRow[];
  stageRows: { workload: string; concurrency: number; stages: ReturnType<typeof stageSummary> }[];
}

/** A confirm workload's row (summed over its rounds), its Server-Timing stages and its log lines. */
function reportConfirms(run: RunState, tally: ConfirmTally, ratios: (perSec: number) => Record<string, number>): number {
  const row = tally.row(ratios(tally.perSec));
  run.rows.push(row);
  const stages = stageSummary(tally.samples);
  if (tally.samples.size > 0) run.stageRows.push({ workload: tally.name, concurrency: tally.concurrency, stages });
  log(
    `${tally.name} c=${tally.concurrency}: ${row.committedPerSec}/s p50 ${row.p50Ms} p99 ${row.p99Ms} errors ${JSON.stringify(row.errorCodes)}`,
  );
  const timing = Object.entries(stages).map(([k, v]) => `${k} ${v.p50}`);
  log(`  ${tally.cpuNote}${timing.length > 0 ? `; Server-Timing p50 ms: ${timing.join(', ')}` : ''}`);
  return row.committedPerSec;
}

async function main(): Promise<void> {
  const started = Date.now();
  const rows: BenchRow[] = [];
  const stageRows: RunState['stageRows'] = [];

  // ---- Baselines: pgbench on its own database, same server, same run. B0-hot (scale 1) is measured
  // next to W2, so this database stays, at scale 1, until then.
  const b0: Record<number, number> = {};
  const b0hot: Record<number, number> = {};
  if (want('B0')) {
    await serverSql(ADMIN, `DROP DATABASE IF EXISTS ${PGBENCH_DB} WITH (FORCE)`);
    await serverSql(ADMIN, `CREATE DATABASE ${PGBENCH_DB}`);
    log('pgbench -i -s 10');
    await pgbench(['-i', '-s', '10', '-q', ...pgbenchUrlArgs(PGBENCH_DB)]);
    for (const c of [1, 8, 32]) {
      b0[c] = await baselineTpcb(10, c);
      rows.push({ workload: 'B0 pgbench TPC-B s=10', concurrency: c, committedPerSec: b0[c], p50Ms: 0, p99Ms: 0, errors: 0 });
    }
    log('pgbench -i -s 1');
    await pgbench(['-i', '-s', '1', '-q', ...pgbenchUrlArgs(PGBENCH_DB)]);
  }
  const b0hotTally = (c: number) =>
    new PgbenchTally('B0-hot pgbench TPC-B s=1', c, (seconds) => [
      '-M',
      'prepared',
      '-c',
      String(c),
      '-j',
      '2',
      '-T',
      String(seconds),
      ...pgbenchUrlArgs(PGBENCH_DB),
    ]);

  // ---- The ledger's database: migrated, funded, intents ready.
  await serverSql(ADMIN, `DROP DATABASE IF EXISTS ${LEDGER_DB} WITH (FORCE)`);
  const ledgerAdminUrl = withDatabase(ADMIN, LEDGER_DB);
  await migrateAll(ledgerAdminUrl);
  const admin = new Client({ connectionString: ledgerAdminUrl });
  await admin.connect();
  log(`funding ${ACCOUNTS} accounts and one merchant`);
  const accounts = await createFundedAccounts(admin, ACCOUNTS, 'USER', 'bench-user-');
  const [merchant] = await createFundedAccounts(admin, 1, 'MERCHANT', 'bench-merchant-');
  await admin.query('ANALYZE');
  const totalsBefore = (await checkInvariants(admin)).totals;

  // Each target's baseline runs in rounds alternating with its workload (rounds.ts), not minutes
  // earlier: this machine's speed drifts within a run.
  // ---- B1's tables: our exact transfer SQL through pgbench at SERIALIZABLE (in W1's rounds).
  const b1: Record<number, number> = {};
  let b1ScriptFile: string | undefined;
  let b1IntentCount = 0;
  if (want('B1')) {
    const b1Intents = await createReadyIntents(admin, randomPairs(accounts, 1_000));
    b1IntentCount = b1Intents.length;
    await createB1Tables(
      admin,
      accounts,
      b1Intents.map((i) => i.id),
    );
    b1ScriptFile = join(tmpdir(), `ledger-b1-${process.pid}.sql`);
    writeFileSync(b1ScriptFile, b1Script());
  }
  // At c = 1 too: how fast this database runs the transfer's SQL one at a time in this run (through
  // pgbench's nine round trips per transfer, where the service sends one statement: an upper bound on
  // the database's share of W1's latency at c = 1, not a floor; sql-floor.ts measures that).
  const b1Tally = (c: number) =>
    new PgbenchTally(
      'B1 ledger transfer SQL (pgbench)',
      c,
      (seconds) => [
        '-M',
        'prepared',
        '-n',
        '-c',
        String(c),
        '-j',
        String(Math.min(2, c)),
        '-T',
        String(seconds),
        '--max-tries=10',
        '-D',
        `nacc=${accounts.length}`,
        '-D',
        `nint=${b1IntentCount}`,
        '-f',
        b1ScriptFile!,
        ...pgbenchUrlArgs(LEDGER_DB),
      ],
      { admin, database: LEDGER_DB, user: new URL(ADMIN).username || 'postgres' },
    );
  const reportB1 = (t: PgbenchTally): void => {
    b1[t.concurrency] = t.tps;
    log(
      `B1 c=${t.concurrency}: ${t.tps.toFixed(1)} tps, retried ${t.retried}, failed ${t.failed}, database CPU ${t.dbMsPerOp.toFixed(2)} ms/op`,
    );
    rows.push({
      workload: t.name,
      concurrency: t.concurrency,
      committedPerSec: t.tps,
      ratios: b0[t.concurrency] ? { B0: t.tps / b0[t.concurrency] } : {},
      p50Ms: 0,
      p99Ms: t.latencyAvgMs,
      retriesPerOp: t.retriesPerOp,
      errors: t.failed,
      note: `p99 column = avg latency; CPU/op db ${t.dbMsPerOp.toFixed(2)} ms`,
    });
  };

  const run: RunState = { admin, rows, stageRows };
  // ---- B2: the HTTP floor, W1's requests answered by a bare Fastify route sending the same
  // statement (http-floor-server.ts): what any Node.js HTTP service needs for a confirm here. W1 / B2
  // is what the ledger's own stack costs on top of that. Up, idle, while the service runs W1.
  const b2: Record<number, number> = {};
  let floor: ConfirmTarget | undefined;
  /** B2's server is stopped once W1 has run (idempotent: the cleanup calls it again) */
  let stopFloor = async (): Promise<void> => undefined;
  // Whatever was started, stopped in reverse order whatever happens (a failed start included).
  const cleanups: (() => unknown)[] = [];

  // ---- B2's server and the service, each as its own process.
  const port = 3900 + Math.floor(Math.random() * 90);
  try {
    if (want('B2')) {
      const started = await startHttpFloor(serviceDatabaseUrl(ledgerAdminUrl, 'ledger-wallets'));
      const floorClient = new BenchClient(`http://127.0.0.1:${started.port}`, {}, 64);
      stopFloor = async () => {
        floor = undefined;
        floorClient.close();
        await stopProcess(started.child);
      };
      cleanups.push(() => stopFloor());
      floor = {
        client: floorClient,
        pid: started.child.pid,
        retries: () => floorClient.call('GET', '/stats').then((r) => Number(r.body.retries)),
      };
    }
    const signer: ConsentSigner = await startConsentSigner();
    cleanups.push(() => signer.close());
    const app = await startApp(port, signer.jwksUrl);
    cleanups.push(() => stopProcess(app));
    const client = new BenchClient(`http://127.0.0.1:${port}`, { 'x-service-key': KEYS.orchestrator }, 64);
    cleanups.push(() => client.close());
    const ledger: ConfirmTarget = { client, pid: app.pid, retries: () => retriesSoFar(port) };

    // warm up both servers
    for (const target of floor ? [ledger, floor] : [ledger]) {
      const warm = await createReadyIntents(admin, randomPairs(accounts, 1_000));
      for (let k = 0; k < warm.length; k += 8) {
        await Promise.all(
          warm.slice(k, k + 8).map((i) => target.client.call('POST', `/v1/internal/intents/${i.id}/transition`, confirmBody(i))),
        );
      }
    }

    // W1: uncontended transfers, random pairs among the funded accounts, in rounds alternating with
    // B1, B2 and W1F at the same concurrency (rounds.ts).
    const w1: Record<number, number> = {};
    const scope: MeterScope = { admin, database: LEDGER_DB, user: 'svc_ledger' };
    // Enough intents for every segment of a workload at the fastest rate measured here, with room
    // (2026-11-26 16:25: W1 at c = 1 871/s, W1F at c = 32 2,408/s, and W2 at c = 32 emptied 30,000).
    const fastestPerSec = (c: number) => (c === 1 ? 1_500 : 4_000);
    const intentsFor = (c: number) => Math.max(2_000, Math.ceil(SEGMENT * ROUNDS * fastestPerSec(c)));
    /** A closed loop that ran out of intents measured a spin, not the ledger: the run stops. */
    const enough = (name: string, used: number, pool: unknown[]) => {
      if (used > pool.length) throw new Error(`${name}: its ${pool.length} intents ran out; the pool must be larger`);
    };
    /** A confirm workload on fresh intents between these accounts (`fee`: W1F's). */
    const confirms = async (name: string, c: number, target: ConfirmTarget, pairs: [string, string][], fee = 0) =>
      new ConfirmTally(name, c, target, await createReadyIntents(admin, pairs, 'PIN_VERIFIED', fee), (i) => confirmBody(i, fee), scope);
    // BENCH_W1_CONCURRENCY narrows the baselines too (short A/B runs); without W1, they run at all three.
    const concurrencies = want('W1') ? [...new Set(W1_CONCURRENCY)].sort((a, b) => a - b) : [1, 8, 32];
    for (const c of concurrencies) {
      const pairs = () => randomPairs(accounts, intentsFor(c));
      const b1t = want('B1') ? b1Tally(c) : undefined;
      const b2t = floor ? await confirms('B2 HTTP floor (bare Fastify, same statement)', c, floor, pairs()) : undefined;
      const w1t = want('W1') ? await confirms('W1 transfers (transition→SUCCEEDED)', c, ledger, pairs()) : undefined;
      // W1F: the same with a fee, so every payment also credits the one FEE_COLLECTION account of XAF.
      const w1ft = want('W1F') ? await confirms('W1F transfers with fee (FEE_COLLECTION hot)', c, ledger, pairs(), FEE) : undefined;
      await alternate(
        ROUNDS,
        SEGMENT,
        [b1t, b2t, w1t, w1ft].filter((t) => t !== undefined),
        () => settle(admin),
      );
      if (b1t) reportB1(b1t);
      if (b2t) b2[c] = reportConfirms(run, b2t, (t): Record<string, number> => (b1[c] ? { B1: t / b1[c] } : {}));
      if (w1t)
        w1[c] = reportConfirms(run, w1t, (t) => ({
          ...(b0[c] ? { B0: t / b0[c] } : {}),
          ...(b1[c] ? { B1: t / b1[c] } : {}),
          ...(b2[c] ? { B2: t / b2[c] } : {}),
        }));
      if (w1ft) reportConfirms(run, w1ft, (t): Record<string, number> => (w1[c] ? { W1: t / w1[c] } : {}));
    }
    await stopFloor();
    if (want('B1')) {
      await admin.query(`DROP TABLE public.b1_acc, public.b1_int`);
      await admin.query(`DROP SEQUENCE public.b1_seq`);
    }
    // W2: every payment credits one merchant account, in rounds alternating with B0-hot.
    for (const c of want('W2') || want('B0') ? [8, 32] : []) {
      const hot = want('B0') ? b0hotTally(c) : undefined;
      const w2t = want('W2') ? await confirms('W2 hot merchant', c, ledger, randomPairs(accounts, intentsFor(c), merchant)) : undefined;
      await alternate(
        ROUNDS,
        SEGMENT,
        [hot, w2t].filter((t) => t !== undefined),
        () => settle(admin),
      );
      if (hot) {
        b0hot[c] = hot.tps;
        log(`pgbench TPC-B scale 1 c=${c}: ${hot.tps.toFixed(1)} tps`);
        rows.push({ workload: hot.name, concurrency: c, committedPerSec: hot.tps, p50Ms: 0, p99Ms: 0, errors: 0 });
      }
      if (w2t) reportConfirms(run, w2t, (t): Record<string, number> => (b0hot[c] ? { 'B0-hot': t / b0hot[c] } : {}));
    }
    // W3: 30% of requests repeat an earlier key (recent ones, so concurrent duplicates overlap in flight).
    for (const c of want('W3') ? [1, 8] : []) {
      const pool = await createReadyIntents(admin, randomPairs(accounts, Math.ceil(SECONDS * fastestPerSec(c))));
      await settle(admin);
      const issued: { intent: PoolIntent; key: string }[] = [];
      let next = 0;
      let replays = 0;
      const before = await retriesSoFar(port);
      const r = await closedLoop(c, SECONDS, async () => {
        let pick: { intent: PoolIntent; key: string };
        if (issued.length > 0 && Math.random() < 0.3) {
          pick = issued[issued.length - 1 - Math.floor(Math.random() * Math.min(issued.length, 2 * c))];
          replays++;
        } else {
          const intent = pool[next++];
          if (!intent) return 'POOL_EXHAUSTED';
          pick = { intent, key: randomUUID() };
          issued.push(pick);
        }
        const res = await client.call('POST', `/v1/internal/intents/${pick.intent.id}/transition`, confirmBody(pick.intent), {
          'x-idempotency-key': pick.key,
        });
        return res.status === 200 ? undefined : String(res.body?.code ?? res.status);
      });
      enough(`W3 c=${c}`, next, pool);
      const retries = (await retriesSoFar(port)) - before;
      const used = issued.map((i) => i.intent.id);
      const check = await admin.query<{ intents: number; txs: number }>(
        `SELECT count(DISTINCT i.id)::int AS intents, count(t.id)::int AS txs FROM ledger.transaction_intents i
         LEFT JOIN ledger.transactions t ON t.intent_id = i.id WHERE i.id = ANY($1::uuid[])`,
        [used],
      );
      const exactlyOnce = check.rows[0].txs === check.rows[0].intents;
      log(`W3 c=${c}: ${r.perSec}/s (${replays} replays) keys ${check.rows[0].intents} transactions ${check.rows[0].txs}`);
      rows.push({
        workload: c === 1 ? 'W3 30% repeated keys, sequential' : 'W3 30% repeated keys, concurrent',
        concurrency: c,
        committedPerSec: r.perSec,
        ratios: b0[c] ? { B0: r.perSec / b0[c] } : {},
        p50Ms: r.p50Ms,
        p99Ms: r.p99Ms,
        retriesPerOp: r.ok ? retries / r.ok : 0,
        errors: r.errors,
        errorCodes: r.errorCodes,
        note: `${replays} replays; ${check.rows[0].txs} tx for ${check.rows[0].intents} keys${exactlyOnce ? ' (exactly once)' : ' — DUPLICATE EXECUTION'}`,
      });
    }
    // W4: the PIN step, each request with its own proof (signed here, before the loop: issuing is
    // auth's cost, not the ledger's). A workload added with consent proofs (docs/ledger.md "Consent proofs"): it has no earlier number to compare.
    for (const c of want('W4') ? [1, 8] : []) {
      const pool = await createReadyIntents(admin, randomPairs(accounts, Math.ceil(SECONDS * fastestPerSec(c))), 'CREATED');
      const proofs = await Promise.all(
        pool.map((i) => signer.sign({ sub: BENCH_INITIATOR, intentId: i.id, step: 'PIN' }, { expiresInSec: 3_600 })),
      );
      await settle(admin);
      let next = 0;
      const before = await retriesSoFar(port);
      const r = await closedLoop(c, SECONDS, async () => {
        const k = next++;
        if (!pool[k]) return 'POOL_EXHAUSTED';
        const res = await client.call('POST', `/v1/internal/intents/${pool[k].id}/transition`, {
          toStatus: 'PIN_VERIFIED',
          actor: { id: BENCH_INITIATOR },
          consentProof: proofs[k],
        });
        return res.status === 200 ? undefined : String(res.body?.code ?? res.status);
      });
      enough(`W4 c=${c}`, next, pool);
      const retries = (await retriesSoFar(port)) - before;
      log(`W4 c=${c}: ${r.perSec}/s p50 ${r.p50Ms} p99 ${r.p99Ms} errors ${JSON.stringify(r.errorCodes)}`);
      rows.push({
        workload: 'W4 PIN step (transition→PIN_VERIFIED, proof verified)',
        concurrency: c,
        committedPerSec: r.perSec,
        ratios: b0[c] ? { B0: r.perSec / b0[c] } : {},
        p50Ms: r.p50Ms,
        p99Ms: r.p99Ms,
        retriesPerOp: r.ok ? retries / r.ok : 0,
        errors: r.errors,
        errorCodes: r.errorCodes,
        note: 'proofs signed outside the loop',
      });
    }
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
    if (want('B0')) await serverSql(ADMIN, `DROP DATABASE IF EXISTS ${PGBENCH_DB} WITH (FORCE)`);
  }

  // ---- Invariants: a fast wrong answer fails the bench.
  const inv = await checkInvariants(admin);
  await admin.end();
  const ok =
    inv.ledgerGaps === 0 &&
    inv.splitGaps === 0 &&
    inv.intentMismatches === 0 &&
    inv.unbalancedTransactions === 0 &&
    JSON.stringify(inv.totals) === JSON.stringify(totalsBefore);
  // Measured in alternating rounds, printed grouped: baselines first.
  const order = ['B0 ', 'B0-hot', 'B1', 'B2', 'W1 ', 'W1F', 'W2', 'W3', 'W4'];
  const rank = (r: BenchRow) => order.findIndex((prefix) => r.workload.startsWith(prefix));
  rows.sort((a, b) => rank(a) - rank(b) || a.concurrency - b.concurrency);
  printTable('Ledger benchmark (committed/s; ratios to the same-run baselines)', rows);
  if (stageRows.length > 0) {
    process.stdout.write('\nServer-Timing of the confirm, by stage (median ms / mean ms):\n');
    for (const r of stageRows) {
      const cells = Object.entries(r.stages).map(([k, v]) => `${k} ${v.p50}/${v.mean}`);
      process.stdout.write(`  ${r.workload} c=${r.concurrency}: ${cells.join(', ')}\n`);
    }
  }
  const profile = PROFILE_DIR ? reportNewestProfile(PROFILE_DIR) : undefined;
  process.stdout.write(
    `\nInvariants: balance = credits − debits on every account: ${inv.ledgerGaps === 0 ? 'OK' : `${inv.ledgerGaps} gaps`}; ` +
      `available + frozen = balance: ${inv.splitGaps === 0 ? 'OK' : `${inv.splitGaps} gaps`}; Σ per currency unchanged: ${JSON.stringify(inv.totals) === JSON.stringify(totalsBefore) ? 'OK' : `${JSON.stringify(totalsBefore)} → ${JSON.stringify(inv.totals)}`}; ` +
      `one transaction per SUCCEEDED intent: ${inv.intentMismatches === 0 ? 'OK' : `${inv.intentMismatches} mismatches`}; balanced transactions: ${inv.unbalancedTransactions === 0 ? 'OK' : inv.unbalancedTransactions}\n`,
  );
  const file = writeResults('ledger', rows, {
    invariants: inv,
    invariantsOk: ok,
    stages: stageRows,
    ...(profile ? { profile } : {}),
    only: ONLY ? [...ONLY] : undefined,
    seconds: SECONDS,
    rounds: ROUNDS,
    segmentSec: SEGMENT,
    accounts: ACCOUNTS,
    wallSec: Math.round((Date.now() - started) / 1000),
  });
  log(`results: ${file} (${Math.round((Date.now() - started) / 1000)} s)`);
  if (!ok) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
