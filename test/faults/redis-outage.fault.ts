/**
 * Redis stopped for 30 s while payments go on: the queue Redis (BullMQ: ledger events, webhooks) and
 * the webhook deduplication store, which stays away 10 s longer. Proves: transfers keep executing
 * (PostgreSQL is the record), the ledger's outbox holds their events meanwhile, the backlog flows
 * once Redis is back, every committed payment's webhook reaches the receiver exactly once after
 * dedup, and the dispatcher delivers without its deduplication store (fail-open, counted).
 */
import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { checkInvariants } from '../../apps/ledger-wallets/test/invariants';
import {
  LedgerCaller,
  Tally,
  type TransferOutcome,
  createFundedAccount,
  planTransfers,
  runBurst,
  verifyLedger,
} from './support/ledger-load';
import { type PartnersStandIn, startPartnersStandIn } from './support/partners-stand-in';
import { type FaultPlatform, startFaultPlatform } from './support/platform';
import { reportRow } from './support/report';
import { type WebhookSink, registerEndpoint, sinkVerdict, startSink, waitUntil, webhookQueue } from './support/webhook-load';

const OUTAGE_MS = 30_000;
const DEDUP_EXTRA_MS = 10_000;
const BEFORE = 20;
const DURING = 40;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('fault: Redis stopped for 30 s during payments', () => {
  let platform: FaultPlatform;
  let sink: WebhookSink;
  let queue: Queue;
  let partners: PartnersStandIn;

  beforeAll(async () => {
    platform = await startFaultPlatform({ services: ['ledger-wallets', 'webhook-dispatcher'], separateDedupRedis: true });
    sink = await startSink();
    queue = webhookQueue(platform.redis.url);
  }, 60_000);
  afterAll(async () => {
    await partners?.close();
    await queue?.close();
    await sink?.close();
    await platform?.close();
  });

  it('holds the events in the outbox, delivers the backlog after, fails open on deduplication, loses nothing', async () => {
    const ledger = platform.service('ledger-wallets');
    const dispatcher = platform.service('webhook-dispatcher');
    const tally = new Tally();
    const caller = new LedgerCaller(ledger.url, platform.keyOf('orchestrator'), tally);
    const funded = new Map<string, number>();
    for (let i = 0; i < 6; i++) funded.set(await createFundedAccount(caller, 100_000, platform.keyOf('ops')), 100_000);
    const admin = await platform.pg.admin();
    const before = await checkInvariants(admin);
    const integrationId = randomUUID();
    await registerEndpoint(dispatcher.url, platform.keyOf('partners'), integrationId, sink);
    partners = startPartnersStandIn(platform.redis.url, queue, integrationId);
    const setupRequests = tally.requests;
    const plan = planTransfers([...funded.keys()], BEFORE + DURING);
    const pending = async () =>
      (await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger.outbox WHERE published_at IS NULL`)).rows[0].n;

    // Before: the whole path works.
    const outcomes: TransferOutcome[] = await runBurst(caller, platform.signer, plan.slice(0, BEFORE), 4, Date.now() + 60_000);
    await waitUntil('the first webhooks', () => sink.handled.size === BEFORE, 30_000);

    // Redis goes away: both servers stop.
    await Promise.all([platform.redis.stop(), platform.dedupRedis!.stop()]);
    const stoppedAt = Date.now();
    const during = await runBurst(
      caller,
      platform.signer,
      plan.slice(BEFORE).map((p, i) => ({ ...p, n: i })),
      2,
      Date.now() + 60_000,
      undefined,
      300,
    );
    outcomes.push(...during);
    const heldInOutbox = await pending();
    const ledgerHealth = await fetch(`${ledger.url}/health`);
    const healthBody = (await ledgerHealth.json()) as Record<string, unknown>;
    const receivedDuringOutage = sink.handled.size;
    await sleep(Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt)));

    // The queue Redis returns; the deduplication store only 10 s later.
    await platform.redis.start();
    const backAt = Date.now();
    await waitUntil('the outbox to drain', async () => (await pending()) === 0, 30_000);
    const committedIds = [...partners.events.values()];
    await waitUntil(
      'every committed payment’s webhook',
      () => partners.events.size === BEFORE + DURING && [...partners.events.values()].every((id) => sink.handled.has(id)),
      30_000,
    );
    const backlogDeliveredMs = Date.now() - backAt;
    const metrics = await (await fetch(`${dispatcher.url}/metrics`, { headers: { 'x-service-key': platform.keyOf('ops') } })).text();
    const failOpen = Number(/^webhook_dedup_unavailable_total (\d+)/m.exec(metrics)?.[1] ?? 0);
    await sleep(Math.max(0, OUTAGE_MS + DEDUP_EXTRA_MS - (Date.now() - stoppedAt)));
    await platform.dedupRedis!.start();

    const verdict = await verifyLedger(caller, admin, outcomes, funded, before.totals);
    await admin.end();
    const webhookIds = [...partners.events.values()];
    const hooks = sinkVerdict(sink, webhookIds);

    reportRow({
      case: 'Redis outage 30 s',
      faults: `queue Redis stopped ${OUTAGE_MS / 1000} s, dedup Redis ${(OUTAGE_MS + DEDUP_EXTRA_MS) / 1000} s, ${DURING} payments meanwhile`,
      requests: tally.requests - setupRequests,
      committed: verdict.committed,
      failedStable: tally.failedStable,
      noAnswer: tally.noAnswer,
      lost: verdict.lost + hooks.missing + (BEFORE + DURING - webhookIds.length),
      duplicated: verdict.duplicated + hooks.handledTwice,
      notes: `outbox held ${heldInOutbox} events, backlog delivered ${(backlogDeliveredMs / 1000).toFixed(1)} s after Redis returned; ${failOpen} dispatches without dedup store (fail-open); ${hooks.redeliveries} redeliveries absorbed`,
    });

    expect(committedIds.length).toBeGreaterThanOrEqual(BEFORE);
    // Payments went on without Redis; their events waited in the outbox; nothing reached the receiver meanwhile.
    expect(during.filter((o) => !o.committed)).toEqual([]);
    expect(heldInOutbox).toBe(DURING);
    expect(receivedDuringOutage).toBe(BEFORE);
    expect(ledgerHealth.status).toBe(503);
    expect(healthBody).toMatchObject({ error: { redis: { status: 'down' } } });
    // Back: every payment's webhook once after dedup, delivered while the dedup store was still away.
    expect(webhookIds).toHaveLength(BEFORE + DURING);
    expect(hooks).toMatchObject({ missing: 0, handledTwice: 0 });
    expect(failOpen).toBeGreaterThanOrEqual(DURING);
    expect(tally.unstable).toEqual([]);
    expect(verdict).toMatchObject({ lost: 0, duplicated: 0, balanceGaps: 0, frozenGaps: 0, totalsKept: true, committed: BEFORE + DURING });
    expect(verdict.invariants).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    expect(ledger.kills + dispatcher.kills).toBe(0);
  });
});
