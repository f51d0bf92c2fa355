import { MoneyPlatform, type TestUser, payOk } from './money-platform';

/**
 * History and receipts through the gateway, scoped by role: end users and merchants see what they
 * paid or received, an agent its cash operations, a master agent also its agents', support all.
 * And the payment SMS: written to the outbox with the success, delivered by the relay.
 */
describe('transaction history, receipts and payment SMS', () => {
  const p = new MoneyPlatform();
  let master: TestUser;
  let agent1: TestUser;
  let agent2: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let shop: TestUser;
  let support: TestUser;
  const refs: Record<string, string> = {};

  beforeAll(async () => {
    await p.start({ orchestratorEnv: { SMS_RELAY_POLL_MS: '50' } });
    master = await p.register('MASTER_AGENT');
    const masterCode = (
      await p.sql.query(
        `SELECT agent_code FROM orchestrator.agents a JOIN orchestrator.customers c ON c.id = a.customer_id WHERE c.user_id = $1`,
        [master.userId],
      )
    ).rows[0].agent_code;
    agent1 = await p.register('AGENT', { firstName: 'Kofi', masterAgentCode: masterCode });
    agent2 = await p.register('AGENT', { firstName: 'Ama' });
    alice = await p.register('CUSTOMER', { firstName: 'Alice' });
    bob = await p.register('CUSTOMER', { firstName: 'Bob' });
    shop = await p.register('MERCHANT');
    support = await p.register('SUPPORT');
    await p.fund(agent1.accounts.XAF, 500_000);
    await p.fund(agent2.accounts.XAF, 500_000);

    const run = async (name: string, initiator: TestUser, body: Record<string, unknown>) => {
      const confirmed = await payOk(p, initiator, body);
      refs[name] = confirmed.body.referenceId;
    };
    await run('cashInAlice', agent1, { type: 'CASH_IN', amount: 50_000, clientPhone: alice.phone });
    await run('transfer', alice, { type: 'TRANSFER', amount: 10_000, clientPhone: bob.phone, description: 'Lunch' });
    await run('cashInBob', agent2, { type: 'CASH_IN', amount: 20_000, clientPhone: bob.phone });
    await run('shop', alice, { type: 'TRANSFER', amount: 1_000, clientPhone: shop.phone });
    const qr = await p.call('POST', '/api/v1/withdrawal-qr', { token: bob.token, body: {} });
    await run('cashOutBob', agent1, { type: 'CASH_OUT', amount: 5_000, qrToken: qr.body.qrToken });
  });
  afterAll(() => p.stop());

  const history = (user: TestUser, query = '') => p.call('GET', `/api/v1/transactions${query}`, { token: user.token });
  /** A payment by its reference; any other line (the agents' funding: a correction of their float) by its kind. */
  const refsOf = (res: { body: { items: Array<{ referenceId: string; kind: string }> } }) =>
    res.body.items.map((i) => (i.kind === 'PAYMENT' ? i.referenceId : i.kind));

  it.each([
    ['an end user: what it paid or received', () => alice, ['shop', 'transfer', 'cashInAlice']],
    ['another end user', () => bob, ['cashOutBob', 'cashInBob', 'transfer']],
    ['a merchant: the payments it received', () => shop, ['shop']],
    ['an agent: its cash operations, and the funding of its float', () => agent1, ['cashOutBob', 'cashInAlice', 'CORRECTION']],
    ['an agent outside the network', () => agent2, ['cashInBob', 'CORRECTION']],
    ["a master agent: its affiliated agents' operations", () => master, ['cashOutBob', 'cashInAlice']],
    ['support: everything', () => support, ['cashOutBob', 'shop', 'cashInBob', 'transfer', 'cashInAlice']],
  ])('%s, newest first', async (_name, who, expected) => {
    const res = await history(who());
    expect(res.status).toBe(200);
    expect(refsOf(res)).toEqual(expected.map((n) => refs[n] ?? n));
    expect(res.body.nextCursor).toBeNull();
  });

  it("directions and commissions: each side sees its own; only the agent's chain and staff see the commission", async () => {
    const [a, b, k, m, s] = await Promise.all([alice, bob, agent1, master, support].map((u) => history(u)));
    const find = (res: typeof a, name: string) => res.body.items.find((i: { referenceId: string }) => i.referenceId === refs[name]);
    expect(find(a, 'transfer')).toMatchObject({ direction: 'DEBIT', amount: 10_000, fee: 100, total: 10_100, commission: null });
    expect(find(b, 'transfer')).toMatchObject({ direction: 'CREDIT', amount: 10_000, fee: 100, commission: null });
    expect(find(a, 'cashInAlice')).toMatchObject({ direction: 'CREDIT', commission: null, agent: { agentCode: agent1.agentCode } });
    expect(find(k, 'cashInAlice')).toMatchObject({ direction: 'DEBIT', commission: 250 });
    expect(find(m, 'cashInAlice')).toMatchObject({ direction: null, commission: 250 });
    expect(find(s, 'cashOutBob')).toMatchObject({ direction: null, fee: 100, commission: 40 });
    expect(find(a, 'shop')).toMatchObject({ operationType: 'MERCHANT_PAYMENT', type: 'TRANSFER', fee: 0 });
  });

  it('pages with a cursor, filters by type and date', async () => {
    const first = await history(support, '?limit=2');
    expect(refsOf(first)).toEqual([refs.cashOutBob, refs.shop]);
    const second = await history(support, `?limit=2&cursor=${first.body.nextCursor}`);
    expect(refsOf(second)).toEqual([refs.cashInBob, refs.transfer]);
    const third = await history(support, `?limit=2&cursor=${second.body.nextCursor}`);
    expect(refsOf(third)).toEqual([refs.cashInAlice]);
    expect(third.body.nextCursor).toBeNull();

    expect(refsOf(await history(support, '?type=CASH_IN'))).toEqual([refs.cashInBob, refs.cashInAlice]);
    expect(refsOf(await history(alice, '?type=MERCHANT_PAYMENT'))).toEqual([refs.shop]);
    expect(refsOf(await history(support, '?from=2999-01-01T00:00:00.000Z'))).toEqual([]);
    expect(refsOf(await history(support, '?to=2000-01-01T00:00:00.000Z'))).toEqual([]);
  });

  it.each([
    ['?cursor=not-a-cursor', 'cursor', 'INVALID_CURSOR'],
    ['?limit=0', 'limit', 'INVALID_LIMIT'],
    ['?limit=101', 'limit', 'INVALID_LIMIT'],
    ['?from=yesterday', 'from', 'INVALID_DATE'],
    // ISO 8601 forms PostgreSQL's timestamptz refuses: the client's 400, never a 500 from the query
    ['?from=2026', 'from', 'INVALID_DATE'],
    ['?to=2026-W01-1', 'to', 'INVALID_DATE'],
    [
      `?cursor=${Buffer.from(JSON.stringify(['1', '6f1d3c52-1a2b-4c3d-8e4f-5a6b7c8d9e01'])).toString('base64url')}`,
      'cursor',
      'INVALID_CURSOR',
    ],
    // a day the calendar does not have (Date.parse rolls it over; PostgreSQL refuses it)
    ['?from=2026-02-30', 'from', 'INVALID_DATE'],
    [
      `?cursor=${Buffer.from(JSON.stringify(['2026-02-30T00:00:00.000Z', '6f1d3c52-1a2b-4c3d-8e4f-5a6b7c8d9e01'])).toString('base64url')}`,
      'cursor',
      'INVALID_CURSOR',
    ],
    ['?type=REFUND', 'type', 'INVALID_TYPE'],
  ])('bad query %s → 400 VALIDATION_ERROR (%s: %s)', async (query, field, code) => {
    const res = await history(alice, query);
    expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(res.body.errors).toEqual([expect.objectContaining({ field, code })]);
  });

  it('a receipt shows fee, total and both parties by display name, to those who may read it', async () => {
    const receipt = await p.call('GET', `/api/v1/transactions/${refs.transfer}`, { token: alice.token });
    expect(receipt.status).toBe(200);
    expect(receipt.body).toMatchObject({
      referenceId: refs.transfer,
      type: 'TRANSFER',
      amount: 10_000,
      fee: 100,
      total: 10_100,
      currency: 'XAF',
      description: 'Lunch',
      payer: { displayName: 'Alice T.' },
      payee: { displayName: 'Bob T.' },
      agent: null,
    });
    expect((await p.call('GET', `/api/v1/transactions/${refs.transfer}`, { token: bob.token })).body.direction).toBe('CREDIT');
    expect((await p.call('GET', `/api/v1/transactions/${refs.transfer}`, { token: support.token })).status).toBe(200);
    for (const [who, ref] of [
      [agent2, refs.transfer],
      [shop, refs.transfer],
      [master, refs.cashInBob],
      [alice, 'MMPTX2601010AAAAAA'],
      [alice, 'not-a-reference'],
    ] as const) {
      const res = await p.call('GET', `/api/v1/transactions/${ref}`, { token: who.token });
      expect([res.status, res.body.code]).toEqual([404, 'TRANSACTION_NOT_FOUND']);
    }
  });

  it('a merchant may read but not start payments (403 FORBIDDEN)', async () => {
    const res = await p.call('POST', '/api/v1/intents', {
      token: shop.token,
      body: { type: 'TRANSFER', amount: 100, clientPhone: bob.phone },
    });
    expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('payer and payee get their SMS through the outbox relay', async () => {
    const sms = async (phone: string) => {
      for (let i = 0; i < 50; i++) {
        const res = await p.call('GET', `/api/dev/sms?phone=${encodeURIComponent(phone)}`);
        const texts = (res.body.messages as Array<{ text: string }>).map((m) => m.text).filter((t) => t.includes(refs.transfer));
        if (texts.length > 0) return texts;
        await new Promise((r) => setTimeout(r, 100));
      }
      return [];
    };
    expect(await sms(alice.phone)).toEqual([`You paid 10 000 XAF to Bob T. Fee 100 XAF. Ref ${refs.transfer}.`]);
    expect(await sms(bob.phone)).toEqual([`You received 10 000 XAF from Alice T. Ref ${refs.transfer}.`]);
    const { rows } = await p.sql.query(
      `SELECT status, count(*)::int AS n FROM orchestrator.sms_outbox WHERE body LIKE $1 GROUP BY status`,
      [`%${refs.transfer}%`],
    );
    expect(rows).toEqual([{ status: 'sent', n: 2 }]);
  });
});
