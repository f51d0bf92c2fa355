/**
 * Partner API benchmarks (docs/performance.md), against the five services started as processes:
 *
 * W4  POST /api/partners-public/orders through the gateway (API key, rate-limit script, connection
 *     check, directory entry, order insert), closed loop at 8 and 32 in flight, with and without an
 *     Idempotency-Key. Same-run baseline: the gateway's GET /api/health at the same concurrency.
 * W5  ledger commit → verified order.paid at a receiver on loopback (the example receiver, in its
 *     own process): latency = the receiver's 200 minus the commit time the event carries (paidAt).
 *     Same-run baseline: the dispatcher alone, enqueue → 200 on the same endpoint and receiver.
 */
import { fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import { Redis } from 'ioredis';
import { QUEUES, WEBHOOK_JOBS, webhookJobOptions } from '@mm/contracts';
import { deriveServiceKeys } from '../../libs/platform/src/service-credentials';
import { type ConsentSigner, startConsentSigner } from '../../apps/ledger-wallets/test/consent-signer';
import { LedgerPayments } from '../../apps/partners/test/support/ledger-payments';
import { createMerchant } from '../../test/e2e/partners-support';
import { DEFAULT_ADMIN_URL, migrateAll } from '../../tools/db';
import { type BenchRow, closedLoop, percentile, printTable, stopProcess, writeResults } from '../lib/bench';
import { BenchClient } from '../ledger/http-client';
import { portsFrom, startService } from './services';
import { withRunDatabase } from '../lib/run-database';

const ADMIN_URL = process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SECONDS = Number(process.env.BENCH_PARTNERS_SECONDS ?? 10);
const W5_CONCURRENCY = Number(process.env.BENCH_PARTNERS_W5_CONCURRENCY ?? 4);
const PORTS = portsFrom(Number(process.env.BENCH_PARTNERS_PORT_BASE ?? 3700));
// The run's seed: each service's key is derived from it (startService), and the bench presents the
// key of the caller it stands in for.
const SERVICE_KEY = randomBytes(32).toString('hex');
const KEYS = deriveServiceKeys(SERVICE_KEY);
const wallClock = () => performance.timeOrigin + performance.now();

function log(message: string): void {
  process.stdout.write(`[bench:partners] ${message}\n`);
}

async function main(): Promise<void> {
  // This run's own database, dropped at the end whatever happened (Ctrl-C included): never another run's.
  await withRunDatabase(ADMIN_URL, 'partners', (db) => measure(db.adminUrl));
}

async function measure(dbUrl: string): Promise<void> {
  await migrateAll(dbUrl);
  const redisPrefix = `mmbench:partners:${randomUUID().slice(0, 8)}`;
  const url = (port: number) => `http://127.0.0.1:${port}`;
  const signer: ConsentSigner = await startConsentSigner();

  // The partner's receiver, in its own process.
  // By event id (the dispatcher-alone baseline) and by order id (W5).
  const acked = new Map<string, { at: number; paidAt: number }>();
  const receiver = fork(join(__dirname, 'receiver-child.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const receiverPort = await new Promise<number>((resolve) => {
    receiver.on('message', (message: { port?: number; acks?: Array<[string, number, number, string]> }) => {
      if (message.port) resolve(message.port);
      for (const [id, at, paidAt, orderId] of message.acks ?? []) {
        if (!acked.has(id)) acked.set(id, { at, paidAt });
        if (orderId && !acked.has(orderId)) acked.set(orderId, { at, paidAt });
      }
    });
  });

  const common = { adminUrl: dbUrl, redisUrl: REDIS_URL, redisPrefix, serviceKey: SERVICE_KEY };
  const children = [];
  try {
    log('starting auth, ledger-wallets, webhook-dispatcher, partners, orchestrator');
    children.push(await startService('auth', PORTS.auth, common));
    log('auth up');
    children.push(
      await startService('ledger-wallets', PORTS.ledger, {
        ...common,
        extra: {
          LEDGER_CONSENT_JWKS_URL: signer.jwksUrl,
          LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
          LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
        },
      }),
    );
    children.push(
      await startService('webhook-dispatcher', PORTS.dispatcher, {
        ...common,
        extra: { WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      }),
    );
    children.push(
      await startService('partners', PORTS.partners, {
        ...common,
        extra: {
          ORCHESTRATOR_URL: url(PORTS.orchestratorInternal),
          WEBHOOK_DISPATCHER_URL: url(PORTS.dispatcher),
          // Counted by the same script, never refused: the limit itself is not what is measured.
          PARTNERS_RATE_LIMIT_MAX: '1000000000',
        },
      }),
    );
    children.push(
      await startService('orchestrator', PORTS.orchestrator, {
        ...common,
        extra: {
          INTERNAL_PORT: String(PORTS.orchestratorInternal),
          AUTH_URL: url(PORTS.auth),
          PARTNERS_URL: url(PORTS.partners),
          LEDGER_URL: url(PORTS.ledger),
          WEBHOOK_DISPATCHER_URL: url(PORTS.dispatcher),
        },
      }),
    );

    // ---- Fixtures: an integration whose endpoint is the receiver, a merchant with a ledger wallet, an active connection.
    const internal = new BenchClient(url(PORTS.partners), { 'x-service-key': KEYS.orchestrator });
    const created = await internal.call('POST', '/internal/partners/integrations', {
      name: 'Bench POS',
      technicalContactEmail: 'bench@pos.example',
      webhookUrl: `http://127.0.0.1:${receiverPort}/webhooks`,
      createdBy: 'bench',
    });
    if (created.status !== 201) throw new Error(`integration: ${created.status} ${JSON.stringify(created.body)}`);
    const body = created.body as unknown as {
      integration: { id: string };
      apiKeys: { live: { key: string } };
      webhookSecrets: { live: string };
    };
    receiver.send({ secrets: [body.webhookSecrets.live] });
    log('services up; fixtures');
    const sql = new Client({ connectionString: dbUrl });
    sql.on('error', () => undefined);
    await sql.connect();
    const merchant = await createMerchant(
      sql,
      { auth: url(PORTS.auth), ledger: url(PORTS.ledger), serviceKey: KEYS.orchestrator },
      '+237690555001',
    );
    await sql.end();
    const gateway = new BenchClient(url(PORTS.orchestrator), { authorization: `Bearer ${body.apiKeys.live.key}` }, 64);
    const requested = await gateway.call('POST', '/api/partners-public/connections/request', {
      merchantPhone: merchant.phone,
      scopes: ['orders.write'],
    });
    const connectionId = requested.body.connectionId as string;
    const accepted = await internal.call('POST', `/internal/partners/merchants/${merchant.merchantId}/connections/${connectionId}/accept`);
    if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${JSON.stringify(accepted.body)}`);

    const rows: BenchRow[] = [];
    const order = () => ({ merchantId: merchant.merchantId, amount: 1500, externalReference: 'bench' });
    const createOrder = async (idempotent: boolean): Promise<string | void> => {
      const res = await gateway.call('POST', '/api/partners-public/orders', order(), idempotent ? { 'idempotency-key': randomUUID() } : {});
      if (res.status !== 201) return String(res.body.code ?? res.status);
    };

    // ---- W4 and its baseline, interleaved per concurrency level.
    await closedLoop(8, 2, () => createOrder(false)); // warm-up
    for (const c of [8, 32]) {
      const health = await closedLoop(c, SECONDS, async () => {
        const res = await gateway.call('GET', '/api/health');
        if (res.status !== 200) return String(res.status);
      });
      log(`GET /api/health c=${c}: ${health.perSec}/s p50 ${health.p50Ms} ms p99 ${health.p99Ms} ms`);
      rows.push({
        workload: 'B-gw GET /api/health',
        concurrency: c,
        committedPerSec: health.perSec,
        p50Ms: health.p50Ms,
        p99Ms: health.p99Ms,
        errors: health.errors,
        errorCodes: health.errorCodes,
      });
      for (const idempotent of [false, true]) {
        const w4 = await closedLoop(c, SECONDS, () => createOrder(idempotent));
        log(`W4 orders${idempotent ? ' + Idempotency-Key' : ''} c=${c}: ${w4.perSec}/s p50 ${w4.p50Ms} ms p99 ${w4.p99Ms} ms`);
        rows.push({
          workload: `W4 POST orders${idempotent ? ' +Idempotency-Key' : ''}`,
          concurrency: c,
          committedPerSec: w4.perSec,
          ratios: { 'B-gw': w4.perSec / health.perSec },
          p50Ms: w4.p50Ms,
          p99Ms: w4.p99Ms,
          errors: w4.errors,
          errorCodes: w4.errorCodes,
          note: 'through the gateway; ratio = orders/s ÷ health/s',
        });
      }
    }

    // ---- W5 baseline: the dispatcher alone on the same endpoint and receiver (enqueue → 200).
    const queue = new Queue(QUEUES.webhooks, { connection: { url: REDIS_URL }, prefix: `${redisPrefix}:bull` });
    const direct: number[] = [];
    const directIds: string[] = [];
    const directStart = performance.now();
    while (performance.now() - directStart < SECONDS * 1000) {
      const id = randomUUID();
      directIds.push(id);
      const envelope = {
        event: 'order.paid',
        id,
        createdAt: new Date().toISOString(),
        data: {
          orderId: randomUUID(),
          transactionId: 'BENCH',
          amount: 1500,
          currencyCode: 'XAF',
          paidAt: new Date(wallClock()).toISOString(),
        },
      };
      await queue.add(WEBHOOK_JOBS.deliver, { integrationId: body.integration.id, envelope }, webhookJobOptions(id));
      await new Promise((r) => setTimeout(r, 1000 / 20)); // 20 events/s
    }
    await waitFor(() => directIds.every((id) => acked.has(id)), 10_000);
    for (const id of directIds) {
      const a = acked.get(id);
      if (a) direct.push(a.at - a.paidAt);
    }
    direct.sort((a, b) => a - b);
    await queue.close();
    const baseP50 = percentile(direct, 50);
    rows.push({
      workload: 'B-disp enqueue → 200',
      concurrency: 1,
      committedPerSec: Math.round((direct.length / SECONDS) * 10) / 10,
      p50Ms: baseP50,
      p99Ms: percentile(direct, 99),
      errors: directIds.length - direct.length,
      note: 'dispatcher alone, 20 events/s (ms precision of the carried time)',
    });

    // ---- W5: real payments of real orders; each worker pays one order after the other.
    const ledger = new LedgerPayments(url(PORTS.ledger), (intentId, sub) => signer.sign({ sub, intentId, step: 'PIN' }), {
      orchestrator: KEYS.orchestrator,
      ops: KEYS.ops,
    });
    const payer = await ledger.wallet('USER');
    await ledger.fund(payer.XAF, 1_000_000_000);
    const paidEvents = new Map<string, string>();
    const w5 = await closedLoop(W5_CONCURRENCY, SECONDS, async () => {
      const res = await gateway.call('POST', '/api/partners-public/orders', order());
      if (res.status !== 201) return String(res.body.code ?? res.status);
      const o = res.body as { orderId: string; qrToken: string; amount: number };
      await ledger.payQr({ source: payer.XAF, destination: merchant.accounts.XAF, amount: o.amount, qrToken: o.qrToken });
      paidEvents.set(o.orderId, '');
    });
    const ids = [...paidEvents.keys()];
    await waitFor(() => ids.every((id) => acked.has(id)), 20_000);
    const latencies = ids
      .map((id) => acked.get(id))
      .filter((a): a is { at: number; paidAt: number } => a !== undefined)
      .map((a) => a.at - a.paidAt)
      .sort((a, b) => a - b);
    const p50 = percentile(latencies, 50);
    rows.push({
      workload: 'W5 ledger commit → verified order.paid',
      concurrency: W5_CONCURRENCY,
      committedPerSec: w5.perSec,
      ratios: { 'B-disp p50': baseP50 > 0 ? p50 / baseP50 : 0 },
      p50Ms: p50,
      p99Ms: percentile(latencies, 99),
      errors: w5.errors + (paidEvents.size - latencies.length),
      errorCodes: {
        ...w5.errorCodes,
        ...(paidEvents.size > latencies.length ? { NOT_DELIVERED_IN_TIME: paidEvents.size - latencies.length } : {}),
      },
      note: `${latencies.length} payments; ledger outbox poll 500 ms (default); ratio = latency p50 ÷ dispatcher-alone p50`,
    });

    printTable('Partner API: W4 orders through the gateway, W5 ledger commit → verified order.paid', rows);
    log(`results: ${writeResults('partners', rows, { ports: PORTS })}`);
  } finally {
    for (const child of children.reverse()) await stopProcess(child);
    receiver.disconnect();
    await signer.close();
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

async function waitFor(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:partners failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
