import { type Harness, balanceOf, contextFor, fundedAccount, intentBody, invariants, startLedger } from './ledger-harness';

/** The ceiling this file's ledger runs with (LEDGER_COMMISSION_MAX_PER_OPERATION). */
const CEILING = 500;

/**
 * A commission no grid could produce is refused at the ledger, whoever calls
 * (docs/ledger.md "Execution rules"): above the operation's amount, or above the configured ceiling
 * per operation. Nothing moves.
 */
describe('ledger: a commission beyond its bounds is refused (COMMISSION_OUT_OF_RANGE)', () => {
  let h: Harness;
  let treasury: string;

  beforeAll(async () => {
    h = await startLedger({ LEDGER_COMMISSION_MAX_PER_OPERATION: String(CEILING) });
    const t = await h.admin.query<{ id: string }>(`SELECT id FROM ledger.accounts WHERE account_type = 'treasury' AND currency = 'XAF'`);
    treasury = t.rows[0].id;
  });
  afterAll(() => h.close());

  /** An agent (float funded with `float`) and a customer; a CASH_IN of `amount` from the float, at PIN_VERIFIED. */
  const cashIn = async (amount: number, float = 10_000) => {
    const agentWallet = await h.call('POST', '/v1/internal/wallets', {
      ownerType: 'AGENT',
      ownerId: `agent-${amount}-${Date.now()}`,
      currencies: ['XAF'],
    });
    expect(agentWallet.status).toBe(201);
    const accountOf = (type: string) => agentWallet.body.accounts.find((x: { accountType: string }) => x.accountType === type).id as string;
    const agent = accountOf('agent');
    const commissionAccount = accountOf('agent_commission');
    const fund = await h.call('PUT', `/v1/accounts/${agent}/balance/add`, { amount: float, reason: 'test funding', createdBy: 'test' });
    expect(fund.status).toBe(200);
    const customer = await fundedAccount(h, 0);
    const created = await h.call(
      'POST',
      '/v1/internal/intents',
      intentBody(agent, customer, amount, { type: 'CASH_IN', agentId: 'agent-1' }),
    );
    expect(created.status).toBe(201);
    const id = created.body.intentId as string;
    const pin = await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } });
    expect(pin.status).toBe(200);
    return { id, agent, customer, commissionAccount };
  };

  const confirm = (op: Awaited<ReturnType<typeof cashIn>>, amount: number, commission: number, headers: Record<string, string> = {}) =>
    h.call(
      'POST',
      `/v1/internal/intents/${op.id}/transition`,
      {
        toStatus: 'SUCCEEDED',
        actor: { id: 'user-1' },
        executionContext: contextFor(op.agent, op.customer, amount, {
          commission: { amount: commission, accountId: op.commissionAccount },
          metadata: { typeCode: 'CASH_IN_AGENT' },
        }),
      },
      headers,
    );

  const balances = async (op: Awaited<ReturnType<typeof cashIn>>) => ({
    agent: (await balanceOf(h, op.agent)).balance,
    customer: (await balanceOf(h, op.customer)).balance,
    commission: (await balanceOf(h, op.commissionAccount)).balance,
    treasury: (await balanceOf(h, treasury)).balance,
  });

  it.each([
    ['in one round trip (no idempotency key)', {}],
    ['on the idempotent path', { 'x-idempotency-key': 'c0a5e1d2-7b3f-4c9e-8a1d-2e3f4a5b6c70' }],
  ])('a CASH_IN of 100 with a commission of 4e15 answers 422 COMMISSION_OUT_OF_RANGE %s and moves nothing', async (_name, headers) => {
    const op = await cashIn(100);
    const before = await balances(op);
    const res = await confirm(op, 100, 4_000_000_000_000_000, headers as Record<string, string>);
    expect([res.status, res.body.code]).toEqual([422, 'COMMISSION_OUT_OF_RANGE']);
    expect(res.body.message).toMatch(/4000000000000000/);
    expect(await balances(op)).toEqual(before);
    expect((await h.call('GET', `/v1/internal/intents/${op.id}`)).body.status).toBe('PIN_VERIFIED');
  });

  it('a commission above the amount is refused even under the ceiling', async () => {
    const op = await cashIn(300);
    const before = await balances(op);
    const res = await confirm(op, 300, 301);
    expect([res.status, res.body.code]).toEqual([422, 'COMMISSION_OUT_OF_RANGE']);
    expect(await balances(op)).toEqual(before);
  });

  it('confirms racing on one agent float (the group commit may batch them): only the one out of bounds is refused', async () => {
    const first = await cashIn(1_000, 20_000);
    // four more cash-ins from the same float, each to its own customer, all at PIN_VERIFIED
    const ops = [first];
    for (let i = 0; i < 4; i++) {
      const customer = await fundedAccount(h, 0);
      const created = await h.call(
        'POST',
        '/v1/internal/intents',
        intentBody(first.agent, customer, 1_000, { type: 'CASH_IN', agentId: 'agent-1' }),
      );
      expect(created.status).toBe(201);
      const id = created.body.intentId as string;
      expect(
        (await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } })).status,
      ).toBe(200);
      ops.push({ ...first, id, customer });
    }
    const before = await balances(first);
    const commissions = [10, 20, 4_000_000_000_000_000, 30, 40];
    const results = await Promise.all(ops.map((op, i) => confirm(op, 1_000, commissions[i])));
    expect(results.map((r) => r.status)).toEqual([200, 200, 422, 200, 200]);
    expect(results[2].body.code).toBe('COMMISSION_OUT_OF_RANGE');
    const after = await balances(first);
    expect(after.agent).toBe(before.agent - 4 * 1_000);
    expect(after.commission).toBe(before.commission + 100);
    expect(after.treasury).toBe(before.treasury - 100);
    expect((await h.call('GET', `/v1/internal/intents/${ops[2].id}`)).body.status).toBe('PIN_VERIFIED');
  });

  it('a commission one above the ceiling is refused; one equal to the ceiling executes', async () => {
    const refused = await cashIn(1_000);
    const res = await confirm(refused, 1_000, CEILING + 1);
    expect([res.status, res.body.code]).toEqual([422, 'COMMISSION_OUT_OF_RANGE']);

    const op = await cashIn(1_000);
    const before = await balances(op);
    const ok = await confirm(op, 1_000, CEILING);
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('SUCCEEDED');
    expect(await balances(op)).toEqual({
      agent: before.agent - 1_000,
      customer: before.customer + 1_000,
      commission: before.commission + CEILING,
      treasury: before.treasury - CEILING,
    });
    expect(await invariants(h.admin)).toMatchObject({ ledgerGaps: 0, unbalancedTransactions: 0 });
  });
});
