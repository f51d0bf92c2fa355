/**
 * A mixed public load through the gateway, the way the apps and a partner's till produce it:
 * customers' transfers, agents' cash-ins from their float, and partner orders (created through the
 * partner API) paid by a customer scanning their QR. Every step is retried as a well-behaved client
 * retries it — the same request, same Idempotency-Key or intent, until a definite answer — so a
 * replica killed under a request costs a retry, never an operation.
 */
import { randomUUID } from 'node:crypto';
import { type Answer, type HttpCaller, untilDefinite } from './ledger-load';
import type { PartnerFixture } from './partners-load';
import { PIN, bearer, inParallel, login, planRegistration } from './public-load';

export type PartyKind = 'customer' | 'agent';

/** A person registered through the real workflow and signed in; `account` is the XAF main (an agent's float). */
export interface Party {
  kind: PartyKind;
  phone: string;
  token: string;
  account: string;
  /** operations this party started (the velocity rule counts them over ten minutes) */
  started: number;
}

const REGISTER: Record<PartyKind, string> = {
  customer: '/api/orchestrator/auth/register',
  agent: '/api/orchestrator/auth/register/agent',
};

/** `count` parties registered, their XAF account funded through the ledger's test funding (an operators' route). */
export async function registerParties(
  gateway: HttpCaller,
  ledgerAsOps: HttpCaller,
  kind: PartyKind,
  count: number,
  funding: number,
): Promise<Party[]> {
  return inParallel(
    Array.from({ length: count }, (_, n) => n),
    3,
    async (n) => {
      const plan = planRegistration(n, kind);
      const reg = await gateway.call('POST', REGISTER[kind], plan.body, { 'idempotency-key': plan.key });
      if (reg.kind !== 'answer' || reg.status !== 201) throw new Error(`register ${kind}: ${JSON.stringify(reg)}`);
      const account = (reg.body.accounts as Record<string, string>).XAF;
      const funded = await ledgerAsOps.call('PUT', `/v1/accounts/${account}/balance/add`, {
        amount: funding,
        reason: 'fault test funding',
        createdBy: 'fault-test',
      });
      if (funded.kind !== 'answer' || funded.status !== 200) throw new Error(`funding: ${JSON.stringify(funded)}`);
      return { kind, phone: plan.phone, token: await login(gateway, plan.phone), account, started: 0 };
    },
  );
}

export type OperationKind = 'transfer' | 'cash-in' | 'qr-order';

export interface Operation {
  n: number;
  kind: OperationKind;
  payer: Party;
  /** the credited party (a transfer, a cash-in); a QR order credits the merchant */
  payee?: Party;
  amount: number;
  /** the intent's idempotencyKey */
  key: string;
  /** the order's Idempotency-Key at the partner API */
  orderKey?: string;
}

export interface Outcome {
  op: Operation;
  /** when its first request left (epoch ms) */
  startedAt: number;
  /** the order the partner created (a QR order) */
  order?: { orderId: string; qrToken: string; amount: number };
  intentId?: string;
  /** the confirm's 200 */
  confirmed?: Record<string, unknown>;
  /** why it never finished: the step and its last answer */
  failed?: string;
}

/**
 * The next operation of a cycle transfer → cash-in → QR order, each party kept under the
 * velocity rule (`maxStarted` per customer, `maxAgent` per agent); undefined once every party has
 * started its share.
 */
export function operationPlanner(customers: Party[], agents: Party[], limits: { maxStarted: number; maxAgent: number }) {
  let n = 0;
  const leastBusy = (parties: Party[], max: number, not?: Party) =>
    parties.filter((p) => p !== not && p.started < max).sort((a, b) => a.started - b.started)[0];
  return (): Operation | undefined => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const kind = (['transfer', 'cash-in', 'qr-order'] as const)[n % 3];
      n += 1;
      const payer = kind === 'cash-in' ? leastBusy(agents, limits.maxAgent) : leastBusy(customers, limits.maxStarted);
      if (!payer) continue;
      // the payee: the customers in turn, never the payer itself, so money spreads
      const others = customers.filter((c) => c !== payer);
      const payee = kind === 'qr-order' ? undefined : others[n % others.length];
      payer.started += 1;
      const amount = kind === 'transfer' ? 100 + (n % 9) * 25 : kind === 'cash-in' ? 1_000 + (n % 5) * 250 : 500 + (n % 7) * 100;
      return { n, kind, payer, payee, amount, key: randomUUID(), orderKey: kind === 'qr-order' ? randomUUID() : undefined };
    }
    return undefined;
  };
}

function answerText(a: Answer): string {
  return a.kind === 'none' ? a.error : `${a.status} ${String(a.body.code)}`;
}

/** One operation from the first request to the confirm's answer, through whatever is killed meanwhile. */
export async function runOperation(gateway: HttpCaller, partner: PartnerFixture, op: Operation, deadline: number): Promise<Outcome> {
  const outcome: Outcome = { op, startedAt: Date.now() };
  let body: Record<string, unknown>;
  if (op.kind === 'qr-order') {
    const created = await untilDefinite(
      () =>
        gateway.call(
          'POST',
          '/api/partners-public/orders',
          { merchantId: partner.merchant.merchantId, amount: op.amount, externalReference: `replicas-${op.n}` },
          { authorization: `Bearer ${partner.apiKey}`, 'idempotency-key': op.orderKey! },
        ),
      deadline,
    );
    if (created.kind !== 'answer' || created.status !== 201) return { ...outcome, failed: `order: ${answerText(created)}` };
    outcome.order = { orderId: String(created.body.orderId), qrToken: String(created.body.qrToken), amount: Number(created.body.amount) };
    body = { type: 'TRANSFER', amount: outcome.order.amount, qrToken: outcome.order.qrToken, idempotencyKey: op.key };
  } else if (op.kind === 'cash-in') {
    body = { type: 'CASH_IN', amount: op.amount, clientPhone: op.payee!.phone, clientCountryCode: '+237', idempotencyKey: op.key };
  } else {
    body = { type: 'TRANSFER', amount: op.amount, clientPhone: op.payee!.phone, idempotencyKey: op.key };
  }
  const auth = bearer(op.payer.token);
  const created = await untilDefinite(() => gateway.call('POST', '/api/v1/intents', body, auth), deadline);
  if (created.kind !== 'answer' || created.status !== 201) return { ...outcome, failed: `create: ${answerText(created)}` };
  const intentId = String(created.body.intentId);
  outcome.intentId = intentId;
  const pinned = await untilDefinite(() => gateway.call('POST', `/api/v1/intents/${intentId}/verify-pin`, { pin: PIN }, auth), deadline);
  if (pinned.kind !== 'answer' || pinned.status !== 200) return { ...outcome, failed: `verify-pin: ${answerText(pinned)}` };
  const confirmed = await untilDefinite(() => gateway.call('POST', `/api/v1/intents/${intentId}/confirm`, undefined, auth), deadline);
  if (confirmed.kind !== 'answer' || confirmed.status !== 200) return { ...outcome, failed: `confirm: ${answerText(confirmed)}` };
  return { ...outcome, confirmed: confirmed.body };
}

/**
 * `clients` clients, each running operations one after another, starting one at most every
 * `cycleMs` (so a fast machine does not use up the parties' velocity allowance before the faults
 * are over), until the planner has none left or `until` has passed; an operation started before
 * `until` runs to its end.
 */
export async function runMixedLoad(options: {
  gateway: HttpCaller;
  partner: PartnerFixture;
  next: () => Operation | undefined;
  clients: number;
  until: number;
  cycleMs: number;
  /** how long one operation may keep retrying after `until` */
  graceMs: number;
}): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  await Promise.all(
    Array.from({ length: options.clients }, async () => {
      while (Date.now() < options.until) {
        const op = options.next();
        if (!op) return;
        const started = Date.now();
        outcomes.push(await runOperation(options.gateway, options.partner, op, options.until + options.graceMs));
        await new Promise((r) => setTimeout(r, Math.max(0, started + options.cycleMs - Date.now())));
      }
    }),
  );
  return outcomes.sort((a, b) => a.op.n - b.op.n);
}
