/**
 * What a mixed load left behind, read from the databases with a superuser connection and from the
 * partner's receiver: every operation the client started executed exactly once (one ledger intent
 * under its key, one transaction, the transaction the client was answered), balances as a model of
 * the answered operations predicts, nothing left frozen, the ledger's invariants, and each paid
 * order marked paid by its transaction with exactly one `order.paid` received and handled once.
 */
import type { Client } from 'pg';
import { type Invariants, checkInvariants } from '../../../apps/ledger-wallets/test/invariants';
import { frozenMismatches } from './ledger-load';
import type { Outcome, Party } from './mixed-load';
import { type WebhookSink, sinkVerdict } from './webhook-load';

export interface MixedVerdict {
  committed: number;
  /** started and never executed, or executed without the client learning it (or learning another transaction) */
  lost: number;
  /** executed more than once: two intents under one key, two transactions on one intent */
  duplicated: number;
  /** orchestrator records that do not say SUCCEEDED for an executed payment */
  recordGaps: number;
  balanceGaps: number;
  frozenGaps: number;
  invariants: Invariants;
  totalsKept: boolean;
  orders: OrderVerdict;
}

export interface OrderVerdict {
  paid: number;
  /** orders not marked paid by the ledger transaction that carried their QR */
  inconsistent: number;
  /** paid orders without an `order.paid` at the receiver */
  undelivered: number;
  /** orders with two `order.paid` events (two ids) */
  twoEvents: number;
  /** events handled twice by the receiver after its deduplication */
  handledTwice: number;
  /** redeliveries of one event the receiver absorbed (at-least-once delivery after a kill) */
  redeliveries: number;
  /** `order.paid` whose data names another transaction or amount */
  wrongData: number;
  /** `order.paid` events partners recorded for these orders (must equal paid) */
  recordedEvents: number;
  anomalies: number;
}

interface LedgerRow {
  key: string;
  intent_id: string;
  status: string;
  intents: number;
  txs: number;
  tx: string | null;
  reference: string | null;
}

export async function verifyMixedLoad(
  admin: Client,
  outcomes: Outcome[],
  parties: Party[],
  merchantAccount: string,
  funding: Map<string, number>,
  totalsBefore: Invariants['totals'],
  sink: WebhookSink,
): Promise<MixedVerdict> {
  const keys = outcomes.map((o) => o.op.key);
  const ledger = await admin.query<LedgerRow>(
    `SELECT i.idempotency_key AS key, min(i.id::text) AS intent_id, min(i.status) AS status, count(DISTINCT i.id)::int AS intents,
            count(t.id)::int AS txs, min(t.id::text) AS tx, min(t.reference_id) AS reference
       FROM ledger.transaction_intents i LEFT JOIN ledger.transactions t ON t.intent_id = i.id
      WHERE i.idempotency_key = ANY($1) GROUP BY i.idempotency_key`,
    [keys],
  );
  const byKey = new Map(ledger.rows.map((r) => [r.key, r]));
  const records = await admin.query<{ key: string; stage: string; n: number }>(
    `SELECT idempotency_key AS key, min(stage) AS stage, count(*)::int AS n FROM orchestrator.payment_intents
      WHERE idempotency_key = ANY($1) GROUP BY idempotency_key`,
    [keys],
  );
  const recordOf = new Map(records.rows.map((r) => [r.key, r]));

  let lost = 0;
  let duplicated = 0;
  let committed = 0;
  let recordGaps = 0;
  const expected = new Map(funding);
  const move = (account: string, delta: number) => expected.set(account, (expected.get(account) ?? 0) + delta);
  for (const o of outcomes) {
    const l = byKey.get(o.op.key);
    const executed = l?.status === 'SUCCEEDED' && l.txs >= 1;
    if (l && (l.intents > 1 || l.txs > 1)) duplicated += 1;
    if ((recordOf.get(o.op.key)?.n ?? 0) > 1) duplicated += 1;
    if (!executed || !o.confirmed || o.confirmed.transactionId !== l.tx || l.intent_id !== o.intentId) lost += 1;
    if (!executed) continue;
    committed += 1;
    if (recordOf.get(o.op.key)?.stage !== 'SETTLED') recordGaps += 1;
    const amount = o.order?.amount ?? o.op.amount;
    move(o.op.payer.account, -(amount + Number(o.confirmed?.fees ?? 0)));
    move(o.op.payee?.account ?? merchantAccount, amount);
  }
  const accounts = [...parties.map((p) => p.account), merchantAccount];
  const balances = await admin.query<{ id: string; balance: string }>(`SELECT id, balance::text FROM ledger.accounts WHERE id = ANY($1)`, [
    accounts,
  ]);
  const balanceGaps = balances.rows.filter((r) => Number(r.balance) !== (expected.get(r.id) ?? 0)).length;
  const invariants = await checkInvariants(admin);
  return {
    committed,
    lost,
    duplicated,
    recordGaps,
    balanceGaps,
    frozenGaps: await frozenMismatches(admin),
    invariants,
    totalsKept: sameTotals(invariants.totals, totalsBefore),
    orders: await verifyOrders(admin, outcomes, sink),
  };
}

/** The same sum for every currency (the query's row order, and so the keys', is not fixed). */
function sameTotals(a: Invariants['totals'], b: Invariants['totals']): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => a[k] === b[k]);
}

/** Each order of the load as partners holds it, against the ledger transaction that carried its QR and the receiver's view. */
export async function verifyOrders(admin: Client, outcomes: Outcome[], sink: WebhookSink): Promise<OrderVerdict> {
  // the orders whose payment the client saw confirmed (one started and never paid is lost above)
  const orders = outcomes.filter((o) => o.order && o.confirmed).map((o) => o.order!);
  const ids = orders.map((o) => o.orderId);
  const p = await admin.query<{ id: string; status: string; ledger_transaction_id: string | null; transaction_reference: string | null }>(
    `SELECT id, status, ledger_transaction_id, transaction_reference FROM partners.orders WHERE id = ANY($1)`,
    [ids],
  );
  const l = await admin.query<{ qr_token: string; transaction_id: string; reference_id: string }>(
    `SELECT i.qr_token, t.id AS transaction_id, t.reference_id FROM ledger.transaction_intents i
       JOIN ledger.transactions t ON t.intent_id = i.id WHERE i.qr_token = ANY($1)`,
    [orders.map((o) => o.qrToken)],
  );
  const events = await admin.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM partners.events WHERE type = 'order.paid' AND subject_id = ANY($1)`,
    [ids],
  );
  const anomalies = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM partners.payment_anomalies`);
  const partners = new Map(p.rows.map((r) => [r.id, r]));
  const ledger = new Map(l.rows.map((r) => [r.qr_token, r]));
  const byOrder = eventsByOrder(sink);
  const eventIds = [...byOrder.values()].flat();
  const hooks = sinkVerdict(sink, eventIds);
  let inconsistent = 0;
  let wrongData = 0;
  for (const o of orders) {
    const order = partners.get(o.orderId);
    const paidBy = ledger.get(o.qrToken);
    if (!order || !paidBy || order.status !== 'paid' || order.ledger_transaction_id !== paidBy.transaction_id) inconsistent += 1;
    if (order && paidBy && order.transaction_reference !== paidBy.reference_id) inconsistent += 1;
    const data = sink.paid.get(byOrder.get(o.orderId)?.[0] ?? '');
    if (data && (!paidBy || data.transactionId !== paidBy.reference_id || data.amount !== o.amount)) wrongData += 1;
  }
  return {
    paid: orders.filter((o) => partners.get(o.orderId)?.status === 'paid').length,
    inconsistent,
    undelivered: orders.filter((o) => !byOrder.has(o.orderId)).length,
    twoEvents: [...byOrder.values()].filter((e) => e.length > 1).length,
    handledTwice: hooks.handledTwice,
    redeliveries: hooks.redeliveries,
    wrongData,
    recordedEvents: events.rows[0].n,
    anomalies: anomalies.rows[0].n,
  };
}

/** The ids of the `order.paid` events the receiver handled, per order. */
export function eventsByOrder(sink: WebhookSink): Map<string, string[]> {
  const byOrder = new Map<string, string[]>();
  for (const [eventId, data] of sink.paid) {
    const orderId = String(data.orderId);
    byOrder.set(orderId, [...(byOrder.get(orderId) ?? []), eventId]);
  }
  return byOrder;
}
