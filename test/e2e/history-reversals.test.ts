import { randomUUID } from 'node:crypto';
import { internalListenerOf } from '@mm/platform';
import { type OpenApiDocument, undocumented } from '../support/openapi-departures';
import { allowedCallerKey } from '../support/test-env';
import { MoneyPlatform, type TestUser, payOk } from './money-platform';

interface Line {
  kind: 'PAYMENT' | 'REVERSAL' | 'CORRECTION';
  referenceId: string;
  direction: 'DEBIT' | 'CREDIT' | null;
  amount: number;
  fee: number;
  currency: string;
  balanceChange: number | null;
  reverses: string | null;
  reversedBy: string | null;
}

/**
 * As docs/mobile-api.md "History and receipts" states: a payment reversed by operators under
 * maker-checker shows as reversed in every party's history and receipts, the reversal appears as its own
 * line linked to it, and a history always adds up to the balance: payer, payee, agent and merchant.
 */
describe('history after a reversal: every party sees it, and its history sums to its balance', () => {
  const p = new MoneyPlatform();
  let agent: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let shop: TestUser;
  let maker: TestUser;
  let checkerToken: string;
  const refs: Record<string, string> = {};

  /** A REVERSAL submitted by the compliance officer and approved by the administrator; the reversal's reference. */
  const reverse = async (referenceId: string): Promise<string> => {
    const call = async (path: string, token: string, body: unknown) => {
      const res = await fetch(`${p.ledger.url}${path}`, {
        method: 'POST',
        headers: {
          'x-service-key': allowedCallerKey('ledger-wallets', 'POST', path),
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const submitted = await call('/v1/internal/corrections', maker.token, {
      idempotencyKey: randomUUID(),
      kind: 'REVERSAL',
      referenceId,
      reason: 'paid the wrong person',
    });
    expect(submitted.status).toBe(201);
    const approved = await call(`/v1/internal/corrections/${String(submitted.body.id)}/approve`, checkerToken, { reason: 'confirmed' });
    expect([approved.status, approved.body.status, approved.body.message]).toEqual([200, 'EXECUTED', undefined]);
    return approved.body.referenceId as string;
  };

  /** Every line of a user's history, page after page (`limit` per page). */
  const wholeHistory = async (user: TestUser, limit: number): Promise<Line[]> => {
    const lines: Line[] = [];
    let cursor: string | null = null;
    do {
      const res = await p.call('GET', `/api/v1/transactions?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, { token: user.token });
      expect(res.status).toBe(200);
      lines.push(...(res.body.items as Line[]));
      cursor = res.body.nextCursor as string | null;
    } while (cursor);
    return lines;
  };

  /** What the user holds in XAF: its main account, and its commission account for an agent. */
  const holdings = async (user: TestUser): Promise<number> => {
    const accounts = [user.accounts.XAF, ...(user.commission?.XAF ? [user.commission.XAF] : [])];
    let total = 0;
    for (const id of accounts) total += (await p.balance(id)).balance;
    return total;
  };

  beforeAll(async () => {
    await p.start();
    agent = await p.register('AGENT', { firstName: 'Kofi' });
    alice = await p.register('CUSTOMER', { firstName: 'Alice' });
    bob = await p.register('CUSTOMER', { firstName: 'Bob' });
    shop = await p.register('MERCHANT');
    maker = await p.register('COMPLIANCE');
    checkerToken = await p.adminToken();
    await p.fund(agent.accounts.XAF, 500_000);

    const run = async (name: string, initiator: TestUser, body: Record<string, unknown>) => {
      const confirmed = await payOk(p, initiator, body);
      refs[name] = confirmed.body.referenceId as string;
    };
    await run('cashIn', agent, { type: 'CASH_IN', amount: 50_000, clientPhone: alice.phone });
    await run('transfer', alice, { type: 'TRANSFER', amount: 10_000, clientPhone: bob.phone, description: 'Lunch' });
    await run('shop', alice, { type: 'TRANSFER', amount: 1_000, clientPhone: shop.phone });
    await run('kept', alice, { type: 'TRANSFER', amount: 2_000, clientPhone: bob.phone });
    await run('cashInBob', agent, { type: 'CASH_IN', amount: 5_000, clientPhone: bob.phone });
    refs.transferReversal = await reverse(refs.transfer);
    refs.shopReversal = await reverse(refs.shop);
    refs.cashInBobReversal = await reverse(refs.cashInBob);
  }, 120_000);
  afterAll(() => p.stop());

  it.each([
    ['payer', () => alice],
    ['payee', () => bob],
    ['agent', () => agent],
    ['merchant', () => shop],
  ])('the %s: Σ balanceChange of its whole history = its balance, page by page as in one page', async (_name, who) => {
    const user = who();
    const onePage = await wholeHistory(user, 100);
    const paged = await wholeHistory(user, 2);
    expect(paged.map((l) => l.referenceId)).toEqual(onePage.map((l) => l.referenceId));
    expect(new Set(onePage.map((l) => l.referenceId)).size).toBe(onePage.length);
    expect(onePage.every((l) => l.currency === 'XAF' && Number.isInteger(l.balanceChange))).toBe(true);
    const sum = onePage.reduce((s, l) => s + l.balanceChange!, 0);
    expect(sum).toBe(await holdings(user));
  });

  it('the transfer of 10 000 (fee 100) is marked reversed, and its reversal is a line of its own for payer and payee', async () => {
    for (const [user, direction, change] of [
      [alice, 'DEBIT', -10_100],
      [bob, 'CREDIT', 10_000],
    ] as const) {
      const lines = await wholeHistory(user, 100);
      const original = lines.find((l) => l.referenceId === refs.transfer);
      const reversal = lines.find((l) => l.referenceId === refs.transferReversal);
      expect(original).toMatchObject({
        kind: 'PAYMENT',
        direction,
        balanceChange: change,
        reversedBy: refs.transferReversal,
        reverses: null,
      });
      expect(reversal).toMatchObject({
        kind: 'REVERSAL',
        direction: direction === 'DEBIT' ? 'CREDIT' : 'DEBIT',
        amount: 10_000,
        fee: 100,
        balanceChange: -change,
        reverses: refs.transfer,
        reversedBy: null,
      });
      // newest first: the reversal came after the payment
      expect(lines.indexOf(reversal!)).toBeLessThan(lines.indexOf(original!));
    }
    const kept = (await wholeHistory(alice, 100)).find((l) => l.referenceId === refs.kept);
    expect(kept).toMatchObject({ kind: 'PAYMENT', reversedBy: null });
  });

  it("the agent's history holds the reversed cash-in (float and commission back) and the funding correction", async () => {
    const lines = await wholeHistory(agent, 100);
    expect(lines.find((l) => l.referenceId === refs.cashIn)).toMatchObject({ reversedBy: null, balanceChange: -50_000 + 250 });
    // 0.5 % of 5 000: a commission of 25, taken back from the agent's commission account with the float
    expect(lines.find((l) => l.referenceId === refs.cashInBob)).toMatchObject({
      reversedBy: refs.cashInBobReversal,
      balanceChange: -5_000 + 25,
    });
    expect(lines.find((l) => l.referenceId === refs.cashInBobReversal)).toMatchObject({
      kind: 'REVERSAL',
      direction: 'CREDIT',
      reverses: refs.cashInBob,
      balanceChange: 5_000 - 25,
    });
    expect(lines.filter((l) => l.kind === 'CORRECTION')).toEqual([
      expect.objectContaining({ direction: 'CREDIT', amount: 500_000, balanceChange: 500_000, reverses: null }),
    ]);
    expect(await p.balance(agent.commission.XAF)).toMatchObject({ balance: 250 });
  });

  it('receipts: the reversal for each party it touched, the original with its reversal; nobody else', async () => {
    for (const user of [alice, shop]) {
      const receipt = await p.call('GET', `/api/v1/transactions/${refs.shopReversal}`, { token: user.token });
      expect(receipt.status).toBe(200);
      expect(receipt.body).toMatchObject({ kind: 'REVERSAL', reverses: refs.shop, amount: 1_000, operationType: 'MERCHANT_PAYMENT' });
    }
    const original = await p.call('GET', `/api/v1/transactions/${refs.shop}`, { token: shop.token });
    expect(original.body).toMatchObject({ kind: 'PAYMENT', reversedBy: refs.shopReversal, direction: 'CREDIT' });
    const stranger = await p.call('GET', `/api/v1/transactions/${refs.transferReversal}`, { token: shop.token });
    expect([stranger.status, stranger.body.code]).toEqual([404, 'TRANSACTION_NOT_FOUND']);
  });

  it('pages holding reversals and corrections, and their receipts, are what the OpenAPI document says', async () => {
    const doc = (await fetch(`${internalListenerOf(p.gateway.app)!.url}/openapi.json`).then((r) => r.json())) as OpenApiDocument;
    const departures: string[] = [];
    for (const user of [alice, bob, agent, shop]) {
      const page = await p.call('GET', '/api/v1/transactions?limit=100', { token: user.token });
      departures.push(...undocumented(doc, 'GET', '/api/v1/transactions', page));
    }
    const correction = (await wholeHistory(agent, 100)).find((l) => l.kind === 'CORRECTION')!;
    for (const ref of [refs.transferReversal, correction.referenceId]) {
      const receipt = await p.call('GET', `/api/v1/transactions/${ref}`, {
        token: ref === correction.referenceId ? agent.token : alice.token,
      });
      expect(receipt.status).toBe(200);
      departures.push(...undocumented(doc, 'GET', '/api/v1/transactions/{referenceId}', receipt));
    }
    expect(departures).toEqual([]);
  });

  it('a type filter keeps the reversals of that type and leaves out corrections', async () => {
    const res = await p.call('GET', '/api/v1/transactions?type=MERCHANT_PAYMENT&limit=100', { token: alice.token });
    expect((res.body.items as Line[]).map((l) => l.referenceId)).toEqual([refs.shopReversal, refs.shop]);
  });
});
