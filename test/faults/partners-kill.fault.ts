/**
 * kill -9 of partners during a burst of QR order payments, then a restart. Customers keep paying at
 * the ledger meanwhile (the ledger does not need partners to take a payment); partners consumes the
 * ledger's `transaction.completed` events from the queue and turns each into `order.paid` through
 * its outbox. Proves: every paid order is marked paid with the ledger transaction that paid it,
 * its `order.paid` reaches the partner's receiver exactly once after deduplication (one event per
 * order, never two), no payment anomaly is invented, and the ledger invariants hold.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { checkInvariants } from '../../apps/ledger-wallets/test/invariants';
import { LedgerCaller, type PlannedTransfer, Tally, createFundedAccount, runBurst, verifyLedger } from './support/ledger-load';
import { type Order, type PartnerFixture, connectPartner, createOrders } from './support/partners-load';
import { type FaultPlatform, startFaultPlatform } from './support/platform';
import { reportRow } from './support/report';
import { type WebhookSink, sinkVerdict, startSink, waitUntil } from './support/webhook-load';

const ORDERS = 90;
const PAYERS = 6;
const CLIENTS = 6;
const KILL_AFTER = 30;

describe('fault: kill -9 of partners during a burst of QR order payments', () => {
  let platform: FaultPlatform;
  let sink: WebhookSink;
  let admin: Client;

  beforeAll(async () => {
    platform = await startFaultPlatform({ services: ['ledger-wallets', 'webhook-dispatcher', 'partners', 'orchestrator'] });
    sink = await startSink();
    admin = await platform.pg.admin();
  }, 90_000);
  afterAll(async () => {
    await admin?.end();
    await sink?.close();
    await platform?.close();
  });

  it('marks every paid order paid and delivers its order.paid exactly once after deduplication', async () => {
    const partners = platform.service('partners');
    const ledger = platform.service('ledger-wallets');
    const tally = new Tally();
    // The payments are the orchestrator's calls to the ledger (QR payment: the order's token on the intent).
    const caller = new LedgerCaller(ledger.url, platform.keyOf('orchestrator'), tally);
    const fixture: PartnerFixture = await connectPartner(
      { partners: partners.url, ledger: ledger.url },
      platform.keyOf('orchestrator'),
      admin,
      sink,
    );
    const orders: Order[] = await createOrders(partners.url, fixture, ORDERS);
    const merchantAccount = fixture.merchant.accounts.XAF;
    const funded = new Map<string, number>([[merchantAccount, 0]]);
    const payers: string[] = [];
    for (let i = 0; i < PAYERS; i++) {
      const account = await createFundedAccount(caller, 200_000, platform.keyOf('ops'));
      payers.push(account);
      funded.set(account, 200_000);
    }
    const before = await checkInvariants(admin);
    const setupRequests = tally.requests;
    const plan: PlannedTransfer[] = orders.map((o, n) => ({
      n,
      source: payers[n % PAYERS],
      destination: merchantAccount,
      amount: o.amount,
      qrToken: o.qrToken,
      createKey: randomUUID(),
      pinKey: randomUUID(),
      confirmKey: randomUUID(),
    }));

    let crash: Promise<void> | undefined;
    let deliveredAtKill = 0;
    let restartedAt = 0;
    const outcomes = await runBurst(
      caller,
      platform.signer,
      plan,
      CLIENTS,
      Date.now() + 60_000,
      (done) => {
        if (done < KILL_AFTER || crash) return;
        crash = (async () => {
          await partners.kill9();
          deliveredAtKill = sink.handled.size;
          await new Promise((r) => setTimeout(r, 500));
          await partners.start();
          restartedAt = Date.now();
        })();
      },
      // spread over the kill and the restart: payments keep coming while partners is away
      100,
    );
    await crash;
    const paidAtBurstEnd = sink.handled.size;

    // Events of jobs the killed process held come back when their queue lock lapses (30 s in partners).
    const orderIds = new Set(orders.map((o) => o.orderId));
    const eventsByOrder = () => {
      const byOrder = new Map<string, string[]>();
      for (const [eventId, data] of sink.paid) {
        const orderId = String(data.orderId);
        byOrder.set(orderId, [...(byOrder.get(orderId) ?? []), eventId]);
      }
      return byOrder;
    };
    await waitUntil('an order.paid for every order', () => [...orderIds].every((id) => eventsByOrder().has(id)), 75_000);
    const allDeliveredMs = Date.now() - restartedAt;

    const verdict = await verifyLedger(caller, admin, outcomes, funded, before.totals);
    const states = await orderStates(admin, orders);
    const byOrder = eventsByOrder();
    const eventIds = [...byOrder.values()].flat();
    const hooks = sinkVerdict(sink, eventIds);
    const twoEvents = [...byOrder.values()].filter((ids) => ids.length > 1).length;
    const wrongData = orders.filter((o) => {
      const data = sink.paid.get(byOrder.get(o.orderId)?.[0] ?? '');
      const ledgerSide = states.ledger.get(o.qrToken);
      return !data || !ledgerSide || data.transactionId !== ledgerSide.reference || data.amount !== o.amount;
    }).length;
    const inconsistent = orders.filter((o) => {
      const order = states.partners.get(o.orderId);
      const ledgerSide = states.ledger.get(o.qrToken);
      return (
        !order ||
        !ledgerSide ||
        order.status !== 'paid' ||
        order.ledger_transaction_id !== ledgerSide.transactionId ||
        order.transaction_reference !== ledgerSide.reference
      );
    }).length;

    reportRow({
      case: 'kill -9 partners',
      faults: `kill -9 partners ×${partners.kills} (after ${KILL_AFTER}/${ORDERS} payments, ${deliveredAtKill} order.paid received), restart 0.5 s later`,
      requests: tally.requests - setupRequests,
      committed: verdict.committed,
      failedStable: tally.failedStable,
      noAnswer: tally.noAnswer,
      lost: verdict.lost + (ORDERS - byOrder.size) + inconsistent,
      duplicated: verdict.duplicated + twoEvents + hooks.handledTwice + states.anomalies,
      notes: `${verdict.committed} QR payments, ${byOrder.size} order.paid (${paidAtBurstEnd} by the burst's end, all ${(allDeliveredMs / 1000).toFixed(1)} s after the restart); ${hooks.redeliveries} redeliveries absorbed; ${states.anomalies} payment anomalies`,
    });

    expect(partners.kills).toBe(1);
    expect(deliveredAtKill).toBeLessThan(ORDERS);
    expect(tally.unstable).toEqual([]);
    expect(outcomes.filter((o) => !o.committed)).toEqual([]);
    expect(verdict).toMatchObject({ lost: 0, duplicated: 0, balanceGaps: 0, frozenGaps: 0, totalsKept: true, committed: ORDERS });
    expect(verdict.invariants).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    // Partners' side: each order paid by its own ledger transaction, one order.paid recorded and delivered once.
    expect({ inconsistent, wrongData, twoEvents, anomalies: states.anomalies, recordedEvents: states.orderPaidEvents }).toEqual({
      inconsistent: 0,
      wrongData: 0,
      twoEvents: 0,
      anomalies: 0,
      recordedEvents: ORDERS,
    });
    expect(hooks).toMatchObject({ missing: 0, handledTwice: 0, received: ORDERS });
    expect(sink.refused).toBe(0);
  });
});

/** Each order as partners holds it, and the ledger transaction that carried its QR token. */
async function orderStates(admin: Client, orders: Order[]) {
  const p = await admin.query<{ id: string; status: string; ledger_transaction_id: string | null; transaction_reference: string | null }>(
    `SELECT id, status, ledger_transaction_id, transaction_reference FROM partners.orders WHERE id = ANY($1)`,
    [orders.map((o) => o.orderId)],
  );
  const l = await admin.query<{ qr_token: string; transaction_id: string; reference_id: string }>(
    `SELECT i.qr_token, t.id AS transaction_id, t.reference_id FROM ledger.transaction_intents i
       JOIN ledger.transactions t ON t.intent_id = i.id WHERE i.qr_token = ANY($1)`,
    [orders.map((o) => o.qrToken)],
  );
  const events = await admin.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM partners.events WHERE type = 'order.paid' AND subject_id = ANY($1)`,
    [orders.map((o) => o.orderId)],
  );
  const anomalies = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM partners.payment_anomalies`);
  return {
    partners: new Map(p.rows.map((r) => [r.id, r])),
    ledger: new Map(l.rows.map((r) => [r.qr_token, { transactionId: r.transaction_id, reference: r.reference_id }])),
    orderPaidEvents: events.rows[0].n,
    anomalies: anomalies.rows[0].n,
  };
}
