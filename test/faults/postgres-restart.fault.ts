/**
 * PostgreSQL restarted (fast shutdown: every connection dropped, open transactions rolled back)
 * during a burst of transfers and webhook deliveries. Proves: while it is away the services answer
 * with a stable 5xx code and never a driver error, they reconnect on their own (same processes),
 * no transfer is lost or executed twice, and every webhook still arrives exactly once after dedup.
 */
import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { checkInvariants } from '../../apps/ledger-wallets/test/invariants';
import { LedgerCaller, Tally, createFundedAccount, planTransfers, runBurst, verifyLedger } from './support/ledger-load';
import { type FaultPlatform, startFaultPlatform } from './support/platform';
import { reportRow } from './support/report';
import {
  type WebhookSink,
  enqueue,
  orderPaid,
  registerEndpoint,
  sinkVerdict,
  startSink,
  waitUntil,
  webhookQueue,
} from './support/webhook-load';

const TRANSFERS = 150;
const CLIENTS = 10;
const RESTART_AFTER = 30;
const DOWN_MS = 3_000;
const EVENTS = 100;

describe('fault: PostgreSQL restarted during a burst', () => {
  let platform: FaultPlatform;
  let sink: WebhookSink;
  let queue: Queue;

  beforeAll(async () => {
    platform = await startFaultPlatform({ services: ['ledger-wallets', 'webhook-dispatcher'] });
    sink = await startSink();
    queue = webhookQueue(platform.redis.url);
  }, 60_000);
  afterAll(async () => {
    await queue?.close();
    await sink?.close();
    await platform?.close();
  });

  it('fails requests with stable codes while it is down, reconnects without a restart, loses nothing', async () => {
    const ledger = platform.service('ledger-wallets');
    const dispatcher = platform.service('webhook-dispatcher');
    const pids = [ledger.pid, dispatcher.pid];
    const tally = new Tally();
    const caller = new LedgerCaller(ledger.url, platform.keyOf('orchestrator'), tally);
    const funded = new Map<string, number>();
    for (let i = 0; i < 8; i++) funded.set(await createFundedAccount(caller, 100_000, platform.keyOf('ops')), 100_000);
    let admin = await platform.pg.admin();
    const before = await checkInvariants(admin);
    await admin.end();
    const integrationId = randomUUID();
    await registerEndpoint(dispatcher.url, platform.keyOf('partners'), integrationId, sink);
    const setupRequests = tally.requests;

    const events = Array.from({ length: EVENTS }, () => orderPaid());
    let outage: Promise<void> | undefined;
    let healthDuring: { status: number; body: Record<string, unknown> } | undefined;
    const burst = runBurst(caller, platform.signer, planTransfers([...funded.keys()], TRANSFERS), CLIENTS, Date.now() + 90_000, (done) => {
      if (done < RESTART_AFTER || outage) return;
      outage = (async () => {
        await platform.pg.stop();
        // Webhooks produced meanwhile: the dispatcher cannot record them until the database is back.
        await Promise.all(events.map((e) => enqueue(queue, integrationId, e)));
        await new Promise((r) => setTimeout(r, DOWN_MS / 2));
        const res = await fetch(`${ledger.url}/health`);
        healthDuring = { status: res.status, body: (await res.json()) as Record<string, unknown> };
        await new Promise((r) => setTimeout(r, DOWN_MS / 2));
        await platform.pg.start();
      })();
    });
    const outcomes = await burst;
    await outage;
    const ids = events.map((e) => e.id);
    await waitUntil('every webhook received', () => ids.every((id) => sink.handled.has(id)), 60_000);

    admin = await platform.pg.admin();
    const verdict = await verifyLedger(caller, admin, outcomes, funded, before.totals);
    await admin.end();
    const hooks = sinkVerdict(sink, ids);

    reportRow({
      case: 'PostgreSQL restart',
      faults: `PostgreSQL fast shutdown after ${RESTART_AFTER}/${TRANSFERS} transfers, down ${DOWN_MS / 1000} s, started again`,
      requests: tally.requests - setupRequests + EVENTS,
      committed: verdict.committed + hooks.received,
      failedStable: tally.failedStable,
      noAnswer: tally.noAnswer,
      lost: verdict.lost + hooks.missing,
      duplicated: verdict.duplicated + hooks.handledTwice,
      notes: `${verdict.committed} transfers + ${hooks.received} webhooks; errors: ${tally.codeList() || 'none'}; same pids after`,
    });

    expect(healthDuring).toMatchObject({ status: 503, body: { error: { database: { status: 'down' } } } });
    // The outage was seen, and only as stable codes.
    expect(tally.failedStable).toBeGreaterThan(0);
    expect(tally.unstable).toEqual([]);
    // An outage is not a bug: no "unhandled error" logged with a stack by either service.
    const unhandled = [...ledger.logs(), ...dispatcher.logs()].filter((l) => l.includes('"unhandled error"'));
    expect(unhandled.map((l) => l.slice(0, 600))).toEqual([]);
    // Every 5xx is 503 SERVICE_UNAVAILABLE; anything else is a retryable answer the clients' same-key retry absorbs.
    const codes = Object.keys(tally.codes);
    expect(codes.filter((k) => k.startsWith('5'))).toEqual(['503 SERVICE_UNAVAILABLE']);
    expect(codes.filter((k) => !k.startsWith('5') && !['409 CONCURRENCY_CONFLICT', '409 IDEMPOTENCY_KEY_IN_PROGRESS'].includes(k))).toEqual(
      [],
    );
    // No restart was needed.
    expect([ledger.pid, dispatcher.pid]).toEqual(pids);
    expect(ledger.kills + dispatcher.kills).toBe(0);
    expect(outcomes.filter((o) => !o.committed)).toEqual([]);
    expect(verdict).toMatchObject({ lost: 0, duplicated: 0, balanceGaps: 0, frozenGaps: 0, totalsKept: true, committed: TRANSFERS });
    expect(verdict.invariants).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    expect(hooks).toMatchObject({ missing: 0, handledTwice: 0 });
  });
});
