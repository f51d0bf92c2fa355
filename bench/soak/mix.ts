/**
 * The soak's mixed load: what people using the platform do, in fixed proportions. Every operation
 * goes through the gateway the way an app or a partner's server calls it.
 */
import type { BenchClient, HttpResult } from '../ledger/http-client';
import { type Population, type User, payIntent } from './fixtures';

export const OP_KINDS = ['transfer', 'cash-in', 'qr-pay', 'order', 'login', 'history'] as const;
export type OpKind = (typeof OP_KINDS)[number];

/**
 * Shares out of 100. Reads and sign-ins are the most frequent calls of a wallet app; payments of
 * partner orders and person-to-person transfers are the money movers; agents cash in; a partner
 * also creates orders that nobody pays (abandoned carts, which expire and are swept).
 */
export const MIX: Record<OpKind, number> = {
  history: 30,
  transfer: 20,
  'qr-pay': 15,
  login: 15,
  'cash-in': 10,
  order: 10,
};

export const OP_DESCRIPTIONS: Record<OpKind, string> = {
  transfer: 'customer → customer: create → verify-pin → confirm',
  'cash-in': 'agent → customer: create → verify-pin → confirm',
  'qr-pay': 'partner creates an order; a customer pays its QR (create → verify-pin → confirm)',
  order: 'partner creates an order nobody pays',
  login: 'a user signs in (PIN hash, new session), everyone in turn',
  history: 'GET /api/v1/transactions?limit=20 (customers, merchants, agents)',
};

/** A deterministic order of kinds with the shares of MIX over every 100 operations (a seeded shuffle). */
function cycle(): OpKind[] {
  const out: OpKind[] = [];
  for (const kind of OP_KINDS) for (let i = 0; i < MIX[kind]; i++) out.push(kind);
  let seed = 0x2f6e2b1;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)];
const between = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));

export class Mix {
  private readonly order = cycle();
  private issued = 0;
  private signIns = 0;
  /** orders whose payment the client saw succeed */
  readonly paidOrders = new Set<string>();
  /** latency of each call inside an operation, by "kind/call" (whole run) */
  readonly calls: Record<string, number[]> = {};

  private readonly everyone: User[];

  constructor(
    private readonly gateway: BenchClient,
    private readonly people: Population,
  ) {
    this.everyone = [...people.customers, ...people.agents, ...people.merchants];
  }

  /** The kind of the next operation in the schedule. */
  next(): OpKind {
    return this.order[this.issued++ % this.order.length];
  }

  /** Runs one operation; nothing on success, `<call>:<stable code or status>` otherwise. */
  run(kind: OpKind): Promise<string | void> {
    switch (kind) {
      case 'transfer':
        return this.transfer();
      case 'cash-in':
        return this.cashIn();
      case 'qr-pay':
        return this.qrPay();
      case 'order':
        return this.createOrder(kind).then((res) => (res.status === 201 ? undefined : `order:${code(res)}`));
      case 'login':
        return this.login();
      case 'history':
        return this.history();
    }
  }

  private timed(kind: OpKind, call: string, fn: () => Promise<HttpResult>): Promise<HttpResult> {
    const t0 = performance.now();
    return fn().then((res) => {
      (this.calls[`${kind}/${call}`] ??= []).push(performance.now() - t0);
      return res;
    });
  }

  private steps(kind: OpKind) {
    return (name: string, call: () => Promise<HttpResult>) => this.timed(kind, name, call);
  }

  private transfer(): Promise<string | void> {
    const { customers } = this.people;
    const payer = pick(customers);
    let payee = pick(customers);
    while (payee === payer) payee = pick(customers);
    return payIntent(
      this.gateway,
      payer,
      { type: 'TRANSFER', amount: between(100, 3_000), clientPhone: payee.phone },
      this.steps('transfer'),
    );
  }

  private cashIn(): Promise<string | void> {
    return payIntent(
      this.gateway,
      pick(this.people.agents),
      { type: 'CASH_IN', amount: between(1_000, 10_000), clientPhone: pick(this.people.customers).phone },
      this.steps('cash-in'),
    );
  }

  private createOrder(kind: OpKind): Promise<HttpResult> {
    const merchant = pick(this.people.merchants);
    return this.timed(kind, 'order', () =>
      this.gateway.call(
        'POST',
        '/api/partners-public/orders',
        { merchantId: merchant.merchantId, amount: between(100, 5_000), externalReference: `soak-${this.issued}` },
        { authorization: `Bearer ${this.people.partnerKey}` },
      ),
    );
  }

  private async qrPay(): Promise<string | void> {
    const created = await this.createOrder('qr-pay');
    if (created.status !== 201) return `order:${code(created)}`;
    const o = created.body as unknown as { orderId: string; qrToken: string; amount: number };
    const failed = await payIntent(
      this.gateway,
      pick(this.people.customers),
      { type: 'TRANSFER', amount: o.amount, qrToken: o.qrToken },
      this.steps('qr-pay'),
    );
    if (!failed) this.paidOrders.add(o.orderId);
    return failed;
  }

  private async login(): Promise<string | void> {
    // Everyone in turn (customers, agents, merchants): access tokens live 15 minutes at most, and
    // this is how the app renews them, so nobody's token runs out however long the soak.
    const user: User = this.everyone[this.signIns++ % this.everyone.length];
    const res = await this.timed('login', 'login', () =>
      this.gateway.call('POST', '/api/auth/login', { phone: user.phone, pin: user.pin }),
    );
    if (res.status !== 200) return `login:${code(res)}`;
    user.token = res.body.token as string;
  }

  private async history(): Promise<string | void> {
    const { customers, merchants, agents } = this.people;
    const r = Math.random();
    const reader = r < 0.8 ? pick(customers) : r < 0.9 ? pick(merchants) : pick(agents);
    const res = await this.timed('history', 'list', () =>
      this.gateway.call('GET', '/api/v1/transactions?limit=20', undefined, { authorization: `Bearer ${reader.token}` }),
    );
    if (res.status !== 200) return `history:${code(res)}`;
  }
}

function code(res: HttpResult): string {
  return String(res.body.code ?? res.status);
}
