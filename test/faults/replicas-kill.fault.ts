/**
 * Two replicas of every service under a mixed public load (transfers, agents' cash-ins, partner
 * orders paid by QR and their webhooks), and a kill -9 of one replica of each service in turn —
 * the one leading that service's periodic jobs when there is one — restarted half a second later.
 * Proves: no operation lost or executed twice, each paid order delivered as exactly one `order.paid`
 * with a valid signature, the ledger's invariants, and each periodic job run at most once per
 * wall-clock slot across the replicas and exactly once outside the slot a leader's kill may cost.
 */
import type { Client } from 'pg';
import type { ServiceName } from '@mm/contracts';
import { checkInvariants } from '../../apps/ledger-wallets/test/invariants';
import { BalancedCaller } from './support/balanced-caller';
import { Tally } from './support/ledger-load';
import { type Outcome, type Party, operationPlanner, registerParties, runMixedLoad } from './support/mixed-load';
import { eventsByOrder, verifyMixedLoad } from './support/mixed-verdict';
import { type PartnerFixture, connectPartner } from './support/partners-load';
import { PeriodicRunLog, type ReplicaKill } from './support/periodic-runs';
import { type ReplicaPlatform, startReplicaPlatform } from './support/replica-platform';
import { reportRow } from './support/report';
import { type WebhookSink, startSink, waitUntil } from './support/webhook-load';

const REPLICAS = 2;
/** the period given to the jobs counted slot by slot: short enough for ~20 slots in the case */
const PERIOD_MS = 3_000;
const CUSTOMERS = 30;
const AGENTS = 3;
const FUNDING = 50_000;
const FLOAT = 1_000_000;
const CLIENTS = 6;
/** each client starts an operation at most this often: at most ~4 a second, within the parties' velocity allowance */
const CYCLE_MS = 1_500;
const LOAD_MS = 70_000;
/** the first kill once the load runs, then one service every KILL_EVERY_MS */
const FIRST_KILL_MS = 8_000;
const KILL_EVERY_MS = 10_000;
const KILL_ORDER: ServiceName[] = ['orchestrator', 'auth', 'partners', 'ledger-wallets', 'webhook-dispatcher'];

/** Every run logged (the line is at debug below 10 s), and the jobs of each service on PERIOD_MS. */
const every = String(PERIOD_MS);
const ENV: Partial<Record<ServiceName, Record<string, string>>> = {
  auth: { LOG_LEVEL: 'debug', OTP_CLEANUP_INTERVAL_MS: every },
  'ledger-wallets': { LOG_LEVEL: 'debug', LEDGER_EXPIRY_SWEEP_INTERVAL_MS: every, LEDGER_MONITORING_POLL_MS: every },
  partners: {
    LOG_LEVEL: 'debug',
    PARTNERS_SWEEP_INTERVAL_MS: every,
    // a killed replica's ledger events return to the queue within seconds
    PARTNERS_LEDGER_EVENTS_LOCK_MS: '2000',
  },
  'webhook-dispatcher': { LOG_LEVEL: 'debug', WEBHOOK_PENDING_SWEEP_INTERVAL_MS: every },
  orchestrator: {
    LOG_LEVEL: 'debug',
    PAYMENTS_RECONCILE_INTERVAL_MS: every,
    APPROVAL_SWEEP_INTERVAL_MS: every,
    SAGA_RECOVERY_INTERVAL_MS: every,
    SMS_RELAY_POLL_MS: every,
  },
};

describe('fault: kill -9 of one replica of each service, two replicas each, under a mixed load', () => {
  let platform: ReplicaPlatform;
  let sink: WebhookSink;
  let admin: Client;
  const runs = new PeriodicRunLog();

  beforeAll(async () => {
    sink = await startSink();
    platform = await startReplicaPlatform({ replicas: REPLICAS, env: ENV, onReplica: (p, label) => runs.attach(p, label) });
    admin = await platform.pg.admin();
  }, 240_000);
  afterAll(async () => {
    await admin?.end();
    await platform?.close();
    await sink?.close();
  });

  it('loses nothing, executes nothing twice, delivers each order.paid once and runs each periodic job once per slot', async () => {
    const setup = new Tally();
    const gatewaySetup = new BalancedCaller(platform.gatewayUrls, setup);
    const ledgerUrls = platform.replicas['ledger-wallets'].map((p) => p.url);
    const ledgerAsOps = new BalancedCaller(ledgerUrls, setup, { 'x-service-key': platform.keyOf('ops') });
    const customers = await registerParties(gatewaySetup, ledgerAsOps, 'customer', CUSTOMERS, FUNDING);
    const agents = await registerParties(gatewaySetup, ledgerAsOps, 'agent', AGENTS, FLOAT);
    const partner: PartnerFixture = await connectPartner(
      { partners: platform.replicas.partners[0].url, ledger: ledgerUrls[0] },
      platform.keyOf('orchestrator'),
      admin,
      sink,
    );
    const merchantAccount = partner.merchant.accounts.XAF;
    const parties: Party[] = [...customers, ...agents];
    const funding = new Map<string, number>([...parties.map((p): [string, number] => [p.account, p.kind === 'agent' ? FLOAT : FUNDING])]);
    funding.set(merchantAccount, 0);
    const before = await checkInvariants(admin);

    const tally = new Tally();
    const gateway = new BalancedCaller(platform.gatewayUrls, tally);
    const loadStart = Date.now();
    const kills: (ReplicaKill & { pidBefore?: number; pidAfter?: number; upMs: number })[] = [];
    const restarts: Promise<void>[] = [];
    // Kills at fixed times; each replica restarts in the background while the next service is killed.
    const killing = (async () => {
      for (const [k, service] of KILL_ORDER.entries()) {
        await sleepUntil(loadStart + FIRST_KILL_MS + k * KILL_EVERY_MS);
        // the replica leading most of this service's periodic jobs, so the kill forces hand-overs
        const leader = runs.leaderOf(service);
        const r = leader ? Number(leader.split('#')[1]) : 0;
        const victim = platform.replicas[service][r];
        const kill = {
          service,
          replica: `${service}#${r}`,
          at: Date.now(),
          pidBefore: victim.pid,
          pidAfter: undefined as number | undefined,
          upMs: 0,
        };
        kills.push(kill);
        // a generous bound on the boot: two services may be starting at once on two cores
        const restart = victim.crashAndRestart(500, 120_000).then(() => {
          kill.upMs = Date.now() - kill.at;
          kill.pidAfter = victim.pid;
        });
        // failed restarts fail the case where they are awaited, after the load
        restart.catch(() => undefined);
        restarts.push(restart);
      }
    })();
    const outcomes: Outcome[] = await runMixedLoad({
      gateway,
      partner,
      next: operationPlanner(customers, agents, { maxStarted: 9, maxAgent: 55 }),
      clients: CLIENTS,
      until: loadStart + LOAD_MS,
      cycleMs: CYCLE_MS,
      graceMs: 60_000,
    });
    await killing;
    await Promise.all(restarts);
    const loadEnd = Date.now();

    // Every paid order's order.paid reaches the receiver (a killed replica's jobs come back when their lock lapses).
    const orderIds = outcomes.filter((o) => o.order && o.confirmed).map((o) => o.order!.orderId);
    await waitUntil('an order.paid for every paid order', () => orderIds.every((id) => eventsByOrder(sink).has(id)), 60_000)
      // the verdict below counts what is missing
      .catch(() => undefined);
    const windowEnd = Date.now();
    const verdict = await verifyMixedLoad(admin, outcomes, parties, merchantAccount, funding, before.totals, sink);

    const jobs = runs.verdicts({ from: loadStart, to: windowEnd }, kills, { min: 1_000, max: 10_000 });
    const duplicateSlots = runs.duplicateSlots();
    const excessGaps = jobs.filter((j) => j.unexcused > 0);
    const judgedServices = new Set(jobs.map((j) => j.job.split('/')[0]));
    const kinds = (k: string) => outcomes.filter((o) => o.op.kind === k && o.confirmed).length;
    const o = verdict.orders;

    reportRow({
      case: 'kill -9 one replica of each service (N = 2)',
      faults: `kill -9 ${kills.map((k) => `${k.replica} at +${((k.at - loadStart) / 1000).toFixed(0)} s (back in ${(k.upMs / 1000).toFixed(1)} s)`).join(', ')}`,
      requests: tally.requests,
      committed: verdict.committed,
      failedStable: tally.failedStable,
      noAnswer: tally.noAnswer,
      lost: verdict.lost + verdict.balanceGaps + verdict.recordGaps + o.inconsistent + o.undelivered + o.wrongData,
      duplicated: verdict.duplicated + o.twoEvents + o.handledTwice + o.anomalies + duplicateSlots.length,
      notes:
        `${((loadEnd - loadStart) / 1000).toFixed(0)} s of load: ${kinds('transfer')} transfers, ${kinds('cash-in')} cash-ins, ` +
        `${kinds('qr-order')} QR orders (${o.paid} paid, ${orderIds.length - o.undelivered} order.paid received, ${o.redeliveries} redeliveries absorbed); ` +
        `periodic: ${jobs.length} jobs counted over ${jobs.reduce((n, j) => n + j.slots, 0)} slots of ${PERIOD_MS / 1000} s, ` +
        `${duplicateSlots.length} slots run twice, ${jobs.reduce((n, j) => n + j.gaps, 0)} missed (${jobs.reduce((n, j) => n + j.leaderKills, 0)} leader kills allow one each in their slot or the next; ${jobs.reduce((n, j) => n + j.unexcused, 0)} elsewhere), ${jobs.reduce((n, j) => n + j.skipped, 0)} skipped by their leader; ` +
        `errors: ${tally.codeList() || 'none'}` +
        (verdict.totalsKept
          ? ''
          : `; balances per currency ${JSON.stringify(before.totals)} → ${JSON.stringify(verdict.invariants.totals)}`),
    });
    if (jobs.some((j) => j.gaps > 0) || duplicateSlots.length > 0)
      process.stdout.write(
        `periodic jobs (kills at ${kills.map((k) => `${k.replica} +${((k.at - loadStart) / 1000).toFixed(1)} s`).join(', ')}):\n` +
          `${jobs.map((j) => JSON.stringify(j)).join('\n')}\nslots run twice: ${duplicateSlots.join(', ') || 'none'}\n`,
      );
    if (!verdict.totalsKept) process.stdout.write(`invariants: ${JSON.stringify(verdict.invariants)}\n`);

    // Each service lost one replica to a kill -9 and got it back.
    expect(kills.map((k) => k.service)).toEqual(KILL_ORDER);
    for (const k of kills) expect(k.pidAfter).not.toBe(k.pidBefore);
    expect(tally.noAnswer).toBeGreaterThan(0);
    expect(tally.unstable).toEqual([]);
    expect(Object.keys(tally.codes).filter((c) => c.startsWith('500'))).toEqual([]);
    // The load went on past the last kill, and every operation started was executed once, as answered.
    expect(outcomes.filter((x) => x.startedAt > kills[kills.length - 1].at).length).toBeGreaterThan(0);
    expect(outcomes.filter((x) => x.failed)).toEqual([]);
    expect(kinds('transfer') * kinds('cash-in') * kinds('qr-order')).toBeGreaterThan(0);
    expect(verdict).toMatchObject({ lost: 0, duplicated: 0, recordGaps: 0, balanceGaps: 0, frozenGaps: 0, totalsKept: true });
    expect(verdict.invariants).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    // Each paid order: paid by its transaction, one order.paid recorded, received and handled once.
    expect(o).toMatchObject({
      paid: orderIds.length,
      inconsistent: 0,
      undelivered: 0,
      twoEvents: 0,
      handledTwice: 0,
      wrongData: 0,
      recordedEvents: orderIds.length,
      anomalies: 0,
    });
    expect(sink.refused).toBe(0);
    // Periodic jobs: at most once per slot everywhere; exactly once per slot but for one slot per leader killed (its own or the next).
    expect(runs.malformed).toBe(0);
    expect(duplicateSlots).toEqual([]);
    expect(excessGaps).toEqual([]);
    expect([...judgedServices].sort()).toEqual([...KILL_ORDER].sort());
    // A killed leader's jobs were taken over by the other replica.
    for (const j of jobs.filter((x) => x.leaderKills > 0)) expect(j.runners).toBeGreaterThanOrEqual(2);
  }, 240_000);
});

function sleepUntil(at: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
}
