/**
 * `npm run bench:ledger` — the ledger's benchmark (docs/performance.md): baselines B0 (pgbench TPC-B scale 10),
 * B0-hot (scale 1) and B1 (our transfer SQL in a pgbench script) in the same run, then W1
 * (uncontended transfers at the internal transition endpoint, concurrency 1/8/32), W2 (one hot
 * merchant account, 8/32), W3 (30% repeated idempotency keys, sequential and concurrent) and W4
 * (the PIN step with its consent proof, 1/8; proofs signed before the measured loop by a stand-in
 * for auth whose key set the app fetches once), ending with the ledger invariant check. The app runs as its own process (dist main.js).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { serviceDatabaseUrl } from '@mm/contracts';
import { generateServiceKeys, serviceCredentialEnv } from '@mm/platform';
import { type BenchRow, closedLoop, pgbench, printTable, writeResults } from '../lib/bench';
import { migrateAll, withDatabase } from '../../tools/db';
import { b1Script } from './b1-script';
import { BenchClient } from './http-client';
import { type ConsentSigner, startConsentSigner } from '../../apps/ledger-wallets/test/consent-signer';
import { checkInvariants } from '../../apps/ledger-wallets/test/invariants';
import { AMOUNT, BENCH_INITIATOR, type PoolIntent, createFundedAccounts, createReadyIntents, randomPairs } from './fixtures';

const ADMIN = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const LEDGER_DB = 'mm_bench_ledger';
const PGBENCH_DB = 'mm_bench_pgbench';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 5_000);
/** One key per caller for this run: the bench drives the ledger as the orchestrator does. */
const KEYS = generateServiceKeys();

function log(message: string): void {
  process.stdout.write(`[bench:ledger] ${message}\n`);
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
  const child = spawn(process.execPath, [join(__dirname, '../../apps/ledger-wallets/src/main.js')], {
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
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      if (res.status === 200) return child;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error('ledger-wallets did not start');
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

function confirmBody(intent: PoolIntent) {
  return {
    toStatus: 'SUCCEEDED',
    actor: { id: 'bench' },
    executionContext: {
      sourceAccountId: intent.source,
      destinationAccountId: intent.destination,
      amount: AMOUNT,
      currency: 'XAF',
      metadata: { typeCode: 'P2P' },
    },
  };
}

async function main(): Promise<void> {
  const started = Date.now();
  const rows: BenchRow[] = [];

  // ---- Baselines: pgbench on its own database, same server, same run.
  await adminQuery(`DROP DATABASE IF EXISTS ${PGBENCH_DB} WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE ${PGBENCH_DB}`);
  log('pgbench -i -s 10');
  await pgbench(['-i', '-s', '10', '-q', ...pgbenchUrlArgs(PGBENCH_DB)]);
  const b0: Record<number, number> = {};
  for (const c of [1, 8, 32]) b0[c] = await baselineTpcb(10, c);
  log('pgbench -i -s 1');
  await pgbench(['-i', '-s', '1', '-q', ...pgbenchUrlArgs(PGBENCH_DB)]);
  const b0hot: Record<number, number> = {};
  for (const c of [8, 32]) b0hot[c] = await baselineTpcb(1, c);
  await adminQuery(`DROP DATABASE IF EXISTS ${PGBENCH_DB} WITH (FORCE)`);
  for (const c of [1, 8, 32])
    rows.push({ workload: 'B0 pgbench TPC-B s=10', concurrency: c, committedPerSec: b0[c], p50Ms: 0, p99Ms: 0, errors: 0 });
  for (const c of [8, 32])
    rows.push({ workload: 'B0-hot pgbench TPC-B s=1', concurrency: c, committedPerSec: b0hot[c], p50Ms: 0, p99Ms: 0, errors: 0 });

  // ---- The ledger's database: migrated, funded, intents ready.
  await adminQuery(`DROP DATABASE IF EXISTS ${LEDGER_DB} WITH (FORCE)`);
  const ledgerAdminUrl = withDatabase(ADMIN, LEDGER_DB);
  await migrateAll(ledgerAdminUrl);
  const admin = new Client({ connectionString: ledgerAdminUrl });
  await admin.connect();
  log(`funding ${ACCOUNTS} accounts and one merchant`);
  const accounts = await createFundedAccounts(admin, ACCOUNTS, 'USER', 'bench-user-');
  const [merchant] = await createFundedAccounts(admin, 1, 'MERCHANT', 'bench-merchant-');
  await admin.query('ANALYZE');
  const totalsBefore = (await checkInvariants(admin)).totals;

  // ---- B1: our exact transfer SQL through pgbench at SERIALIZABLE.
  const b1Intents = await createReadyIntents(admin, randomPairs(accounts, 1_000));
  await admin.query(`CREATE TABLE public.b1_acc (n int PRIMARY KEY, id uuid NOT NULL)`);
  await admin.query(`CREATE TABLE public.b1_int (n int PRIMARY KEY, id uuid NOT NULL)`);
  await admin.query(`CREATE SEQUENCE public.b1_seq`);
  await admin.query(
    `INSERT INTO public.b1_acc SELECT g, (ARRAY[${accounts.map((a) => `'${a}'::uuid`).join(',')}])[g] FROM generate_series(1, ${accounts.length}) g`,
  );
  await admin.query(`INSERT INTO public.b1_int SELECT g, x FROM unnest($1::uuid[]) WITH ORDINALITY AS u(x, g)`, [
    b1Intents.map((i) => i.id),
  ]);
  const script = join(tmpdir(), `ledger-b1-${process.pid}.sql`);
  writeFileSync(script, b1Script());
  const b1: Record<number, number> = {};
  for (const c of [8, 32]) {
    const r = await pgbench([
      '-M',
      'prepared',
      '-n',
      '-c',
      String(c),
      '-j',
      '2',
      '-T',
      String(SECONDS),
      '--max-tries=10',
      '-D',
      `nacc=${accounts.length}`,
      '-D',
      `nint=${b1Intents.length}`,
      '-f',
      script,
      ...pgbenchUrlArgs(LEDGER_DB),
    ]);
    b1[c] = r.tps;
    log(`B1 c=${c}: ${r.tps.toFixed(1)} tps, retried ${r.retried}, failed ${r.failed}`);
    rows.push({
      workload: 'B1 ledger transfer SQL (pgbench)',
      concurrency: c,
      committedPerSec: r.tps,
      ratios: { B0: r.tps / (b0[c] || 1) },
      p50Ms: 0,
      p99Ms: r.latencyAvgMs,
      retriesPerOp: r.tps > 0 ? r.retried / (r.tps * SECONDS) : 0,
      errors: r.failed,
      note: 'p99 column = avg latency',
    });
  }
  await admin.query(`DROP TABLE public.b1_acc, public.b1_int`);
  await admin.query(`DROP SEQUENCE public.b1_seq`);

  // ---- The service, as its own process.
  const port = 3900 + Math.floor(Math.random() * 90);
  const signer: ConsentSigner = await startConsentSigner();
  const app = await startApp(port, signer.jwksUrl);
  const client = new BenchClient(`http://127.0.0.1:${port}`, { 'x-service-key': KEYS.orchestrator }, 64);
  try {
    // warm up
    const warm = await createReadyIntents(admin, randomPairs(accounts, 1_000));
    for (let k = 0; k < warm.length; k += 8) {
      await Promise.all(warm.slice(k, k + 8).map((i) => client.call('POST', `/v1/internal/intents/${i.id}/transition`, confirmBody(i))));
    }

    const confirmLoop = async (name: string, c: number, pool: PoolIntent[], ratios: (perSec: number) => Record<string, number>) => {
      let next = 0;
      const before = await retriesSoFar(port);
      const r = await closedLoop(c, SECONDS, async () => {
        const intent = pool[next++];
        if (!intent) return 'POOL_EXHAUSTED';
        const res = await client.call('POST', `/v1/internal/intents/${intent.id}/transition`, confirmBody(intent));
        return res.status === 200 ? undefined : String(res.body?.code ?? res.status);
      });
      const retries = (await retriesSoFar(port)) - before;
      log(`${name} c=${c}: ${r.perSec}/s p50 ${r.p50Ms} p99 ${r.p99Ms} errors ${JSON.stringify(r.errorCodes)}`);
      rows.push({
        workload: name,
        concurrency: c,
        committedPerSec: r.perSec,
        ratios: ratios(r.perSec),
        p50Ms: r.p50Ms,
        p99Ms: r.p99Ms,
        retriesPerOp: r.ok ? retries / r.ok : 0,
        errors: r.errors,
        errorCodes: r.errorCodes,
      });
    };

    // W1: uncontended transfers, random pairs among the funded accounts.
    for (const c of [1, 8, 32]) {
      const pool = await createReadyIntents(admin, randomPairs(accounts, c === 1 ? 6_000 : 20_000));
      await settle(admin);
      await confirmLoop('W1 transfers (transition→SUCCEEDED)', c, pool, (t) => ({
        B0: t / (b0[c] || 1),
        ...(b1[c] ? { B1: t / b1[c] } : {}),
      }));
    }
    // W2: every payment credits one merchant account.
    for (const c of [8, 32]) {
      const pool = await createReadyIntents(admin, randomPairs(accounts, 20_000, merchant));
      await settle(admin);
      await confirmLoop('W2 hot merchant', c, pool, (t) => ({ 'B0-hot': t / (b0hot[c] || 1) }));
    }
    // W3: 30% of requests repeat an earlier key (recent ones, so concurrent duplicates overlap in flight).
    for (const c of [1, 8]) {
      const pool = await createReadyIntents(admin, randomPairs(accounts, 15_000));
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
        ratios: { B0: r.perSec / (b0[c] || 1) },
        p50Ms: r.p50Ms,
        p99Ms: r.p99Ms,
        retriesPerOp: r.ok ? retries / r.ok : 0,
        errors: r.errors,
        errorCodes: r.errorCodes,
        note: `${replays} replays; ${check.rows[0].txs} tx for ${check.rows[0].intents} keys${exactlyOnce ? ' (exactly once)' : ' — DUPLICATE EXECUTION'}`,
      });
    }
    // W4: the PIN step, each request with its own proof (signed here, before the loop: issuing is
    // auth's cost, not the ledger's). A new workload of issue 14: it has no earlier number to compare.
    for (const c of [1, 8]) {
      const pool = await createReadyIntents(admin, randomPairs(accounts, c === 1 ? 6_000 : 20_000), 'CREATED');
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
      const retries = (await retriesSoFar(port)) - before;
      log(`W4 c=${c}: ${r.perSec}/s p50 ${r.p50Ms} p99 ${r.p99Ms} errors ${JSON.stringify(r.errorCodes)}`);
      rows.push({
        workload: 'W4 PIN step (transition→PIN_VERIFIED, proof verified)',
        concurrency: c,
        committedPerSec: r.perSec,
        ratios: { B0: r.perSec / (b0[c] || 1) },
        p50Ms: r.p50Ms,
        p99Ms: r.p99Ms,
        retriesPerOp: r.ok ? retries / r.ok : 0,
        errors: r.errors,
        errorCodes: r.errorCodes,
        note: 'proofs signed outside the loop',
      });
    }
  } finally {
    client.close();
    app.kill('SIGTERM');
    await new Promise((r) => app.once('exit', r));
    await signer.close();
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
  printTable('Ledger benchmark (committed/s; ratios to the same-run baselines)', rows);
  process.stdout.write(
    `\nInvariants: balance = credits − debits on every account: ${inv.ledgerGaps === 0 ? 'OK' : `${inv.ledgerGaps} gaps`}; ` +
      `available + frozen = balance: ${inv.splitGaps === 0 ? 'OK' : `${inv.splitGaps} gaps`}; Σ per currency unchanged: ${JSON.stringify(inv.totals) === JSON.stringify(totalsBefore) ? 'OK' : `${JSON.stringify(totalsBefore)} → ${JSON.stringify(inv.totals)}`}; ` +
      `one transaction per SUCCEEDED intent: ${inv.intentMismatches === 0 ? 'OK' : `${inv.intentMismatches} mismatches`}; balanced transactions: ${inv.unbalancedTransactions === 0 ? 'OK' : inv.unbalancedTransactions}\n`,
  );
  const file = writeResults('ledger', rows, {
    invariants: inv,
    invariantsOk: ok,
    seconds: SECONDS,
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
