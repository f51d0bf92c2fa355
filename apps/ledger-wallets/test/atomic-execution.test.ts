import { type Harness, balanceOf, contextFor, fundedAccount, intentBody, invariants, startLedger, transfer } from './ledger-harness';

/**
 * The intent's life and its execution on SUCCEEDED
 * (docs/ledger.md "Intents", "Transactions and entries").
 */
describe('ledger: intents and atomic execution', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(() => h.close());

  it('runs create → PIN_VERIFIED → SUCCEEDED with double entry, fee, commission, event rows and outbox', async () => {
    // A cash-out: customer a hands 3,000 of e-money to agent-7's float and pays a 100 fee; the
    // treasury pays the agent a 40 commission (6 entries).
    const a = await fundedAccount(h, 10_000);
    const agentWallet = await h.call('POST', '/v1/internal/wallets', { ownerType: 'AGENT', ownerId: 'agent-7', currencies: ['XAF'] });
    const accountOf = (type: string) => agentWallet.body.accounts.find((x: { accountType: string }) => x.accountType === type).id as string;
    const b = accountOf('agent');
    const commissionAccount = accountOf('agent_commission');

    const created = await h.call(
      'POST',
      '/v1/internal/intents',
      intentBody(a, b, 3_000, { type: 'CASH_OUT', fee: 100, agentId: 'agent-7' }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'CREATED', requiresOtp: false, amount: 3_000, fee: 100, frozenAmount: 3_100 });
    expect(await balanceOf(h, a)).toMatchObject({ balance: 10_000, availableBalance: 6_900, frozenBalance: 3_100 });

    const id = created.body.intentId;
    expect(
      (await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } })).status,
    ).toBe(200);
    const correlationId = '5b0c8f4e-8f0a-4c5e-9d6b-1f2e3d4c5b6a';
    const done = await h.call(
      'POST',
      `/v1/internal/intents/${id}/transition`,
      {
        toStatus: 'SUCCEEDED',
        actor: { id: 'user-1', ip: '10.1.2.3', userAgent: 'app/1.0' },
        executionContext: contextFor(a, b, 3_000, {
          fee: { amount: 100 },
          commission: { amount: 40, accountId: commissionAccount },
          metadata: { typeCode: 'CASH_OUT_AGENT', agentId: 'agent-7' },
        }),
      },
      { 'x-correlation-id': correlationId },
    );
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ intentId: id, status: 'SUCCEEDED', amount: 3_000, fee: 100 });
    expect(done.body.referenceId).toMatch(/^MMPTX\d{6}[A-Z0-9]{7}$/);

    expect(await balanceOf(h, a)).toMatchObject({ balance: 6_900, availableBalance: 6_900, frozenBalance: 0 });
    expect(await balanceOf(h, b)).toMatchObject({ balance: 3_000, availableBalance: 3_000 });
    expect(await balanceOf(h, commissionAccount)).toMatchObject({ balance: 40 });

    const tx = await h.admin.query(`SELECT created_by, metadata FROM ledger.transactions WHERE id = $1`, [done.body.transactionId]);
    expect(tx.rows[0].created_by).toBe('user-1');
    expect(tx.rows[0].metadata).toMatchObject({ typeCode: 'CASH_OUT_AGENT', agentId: 'agent-7', correlationId });
    const entries = await h.admin.query(
      `SELECT id, kind, amount::int, counterparty_ledger_id FROM ledger.ledgers WHERE transaction_id = $1`,
      [done.body.transactionId],
    );
    expect(entries.rows).toHaveLength(6);
    for (const e of entries.rows) {
      const other = entries.rows.find((x) => x.id === e.counterparty_ledger_id);
      expect(other.counterparty_ledger_id).toBe(e.id);
      expect(other.kind).not.toBe(e.kind);
      expect(other.amount).toBe(e.amount);
    }
    const events = await h.call('GET', `/v1/internal/intents/${id}/events`);
    expect(events.body.map((e: { event: string }) => e.event)).toEqual(['intent_created', 'pin_ok', 'transaction_completed']);
    expect(events.body[2]).toMatchObject({
      fromStatus: 'PIN_VERIFIED',
      toStatus: 'SUCCEEDED',
      actorId: 'user-1',
      ipAddress: '10.1.2.3',
      userAgent: 'app/1.0',
    });
    const outbox = await h.admin.query(`SELECT event_type, payload FROM ledger.outbox WHERE aggregate_id = $1`, [done.body.transactionId]);
    expect(outbox.rows).toHaveLength(1);
    expect(outbox.rows[0].payload).toMatchObject({
      type: 'transaction.completed',
      referenceId: done.body.referenceId,
      amount: 3_000,
      correlationId,
    });

    const inv = await invariants(h.admin);
    expect(inv).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    expect(inv.totals.XAF).toBe(0);
  });

  it('two simultaneous withdrawals each above half the balance → one 200, one 422 with both amounts', async () => {
    const a = await fundedAccount(h, 1_000);
    const b = await fundedAccount(h, 0);
    const c = await fundedAccount(h, 0);
    const results = await Promise.all([transfer(h, a, b, 600), transfer(h, a, c, 600)]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 422]);
    const rejected = results.find((r) => r.status === 422)!;
    expect(rejected.body.code).toBe('INSUFFICIENT_BALANCE');
    expect(rejected.body.message).toMatch(/available 400, required 600/);
    const after = await balanceOf(h, a);
    expect(after).toMatchObject({ balance: 400, availableBalance: 400, frozenBalance: 0 });
    const sum = await h.admin.query(
      `SELECT sum(CASE kind WHEN 'CREDIT' THEN amount ELSE -amount END)::int AS net FROM ledger.ledgers WHERE account_id = $1`,
      [a],
    );
    expect(sum.rows[0].net).toBe(400);
  });

  it('the same race at confirm time: the fee rises above what was frozen, only one can pay', async () => {
    const a = await fundedAccount(h, 1_000);
    const b = await fundedAccount(h, 0);
    const make = async () => {
      const res = await h.call('POST', '/v1/internal/intents', intentBody(a, b, 450));
      await h.call('POST', `/v1/internal/intents/${res.body.intentId}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'u' } });
      return res.body.intentId as string;
    };
    const [i1, i2] = [await make(), await make()];
    const confirm = (id: string) =>
      h.call('POST', `/v1/internal/intents/${id}/transition`, {
        toStatus: 'SUCCEEDED',
        actor: { id: 'u' },
        executionContext: contextFor(a, b, 450, { fee: { amount: 80 } }),
      });
    const results = await Promise.all([confirm(i1), confirm(i2)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 422]);
    expect(results.find((r) => r.status === 422)!.body.message).toMatch(/available 470, required 530/);
    expect(await balanceOf(h, a)).toMatchObject({ balance: 470, availableBalance: 20, frozenBalance: 450 });
  });

  it('rejects invalid moves with 400 INVALID_INTENT_TRANSITION and keeps terminal states final', async () => {
    const a = await fundedAccount(h, 500);
    const b = await fundedAccount(h, 0);
    const created = await h.call('POST', '/v1/internal/intents', intentBody(a, b, 100, { requiresOtp: true }));
    const id = created.body.intentId;
    const move = (toStatus: string, extra = {}) =>
      h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus, actor: { id: 'u' }, ...extra });
    expect((await move('PIN_VERIFIED')).body.code).toBe('INVALID_INTENT_TRANSITION');
    expect((await move('SUCCEEDED', { executionContext: contextFor(a, b, 100) })).body.code).toBe('INVALID_INTENT_TRANSITION');
    expect((await move('SUCCEEDED')).body.code).toBe('EXECUTION_CONTEXT_REQUIRED');
    expect((await move('OTP_SENT')).status).toBe(200);
    expect((await move('EXPIRED')).body.code).toBe('INTENT_NOT_EXPIRED');
    const canceled = await move('CANCELED', { reason: 'changed my mind' });
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('CANCELED');
    expect(await balanceOf(h, a)).toMatchObject({ balance: 500, availableBalance: 500, frozenBalance: 0 });
    for (const to of ['CREATED', 'OTP_VERIFIED', 'FAILED', 'CANCELED']) {
      const res = await move(to);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_INTENT_TRANSITION');
    }
    expect(
      (
        await h.call('POST', `/v1/internal/intents/0b7c6a70-9f0e-4a52-8f7e-2d1c0b9a8f7e/transition`, {
          toStatus: 'CANCELED',
          actor: { id: 'u' },
        })
      ).status,
    ).toBe(404);
  });

  it('refuses a mismatching execution context, a same-account or cross-currency intent, and money beyond the safe range', async () => {
    const a = await fundedAccount(h, 500);
    const b = await fundedAccount(h, 0);
    const xof = await fundedAccount(h, 0, 'XOF');
    expect((await h.call('POST', '/v1/internal/intents', intentBody(a, a, 10))).body.code).toBe('SAME_ACCOUNT');
    expect((await h.call('POST', '/v1/internal/intents', intentBody(a, xof, 10))).body.code).toBe('CURRENCY_MISMATCH');
    const big = await h.call('POST', '/v1/internal/intents', intentBody(a, b, 2 ** 53));
    expect(big.status).toBe(400);
    expect(big.body.errors[0]).toMatchObject({ field: 'amount', code: 'INVALID_AMOUNT' });
    const missing = await h.call('POST', '/v1/internal/intents', { ...intentBody(a, b, 10), idempotencyKey: undefined });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('IDEMPOTENCY_KEY_MISSING');
    const created = await h.call('POST', '/v1/internal/intents', intentBody(a, b, 10));
    await h.call('POST', `/v1/internal/intents/${created.body.intentId}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'u' } });
    const wrong = await h.call('POST', `/v1/internal/intents/${created.body.intentId}/transition`, {
      toStatus: 'SUCCEEDED',
      actor: { id: 'u' },
      executionContext: contextFor(a, b, 11),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('EXECUTION_CONTEXT_MISMATCH');
  });

  it('locks a QR to one active intent at a time', async () => {
    const a = await fundedAccount(h, 500);
    const b = await fundedAccount(h, 0);
    const first = await h.call('POST', '/v1/internal/intents', intentBody(a, b, 10, { qrToken: 'qr-1' }));
    expect(first.status).toBe(201);
    const second = await h.call('POST', '/v1/internal/intents', intentBody(a, b, 10, { qrToken: 'qr-1' }));
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('QR_TOKEN_LOCKED');
    await h.call('POST', `/v1/internal/intents/${first.body.intentId}/transition`, { toStatus: 'CANCELED', actor: { id: 'u' } });
    expect((await h.call('POST', '/v1/internal/intents', intentBody(a, b, 10, { qrToken: 'qr-1' }))).status).toBe(201);
  });

  it('creates one wallet per entity idempotently, one account per currency', async () => {
    const body = { ownerType: 'MERCHANT', ownerId: 'merchant-42', holderName: 'Boutique 42' };
    const first = await h.call('POST', '/v1/internal/wallets', body);
    expect(first.status).toBe(201);
    expect(first.body.accounts.map((a: { currency: string; accountType: string }) => `${a.accountType}:${a.currency}`)).toEqual([
      'merchant:XAF',
      'merchant:XOF',
    ]);
    const again = await Promise.all([h.call('POST', '/v1/internal/wallets', body), h.call('POST', '/v1/internal/wallets', body)]);
    expect(again.map((r) => r.status)).toEqual([200, 200]);
    expect(again[0].body.id).toBe(first.body.id);
    const byOwner = await h.call('GET', '/v1/internal/wallets?ownerType=MERCHANT&ownerId=merchant-42');
    expect(byOwner.body.id).toBe(first.body.id);
    expect((await h.call('GET', '/v1/internal/wallets/6a0c2b1e-7d3f-4e5a-9b8c-1d2e3f4a5b6c')).body.code).toBe('WALLET_NOT_FOUND');
    expect((await h.call('GET', '/v1/internal/accounts/not-a-uuid')).body.code).toBe('VALIDATION_ERROR');
    expect((await h.call('POST', '/v1/internal/wallets', { ownerType: 'SYSTEM', ownerId: 'x' })).status).toBe(400);
  });

  it('requires the service key on internal and test-funding routes, not on /health', async () => {
    const res = await fetch(`${h.app.url}/v1/internal/technical-accounts`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('INVALID_SERVICE_CREDENTIALS');
    expect((await fetch(`${h.app.url}/v1/accounts/6a0c2b1e-7d3f-4e5a-9b8c-1d2e3f4a5b6c/balance/add`, { method: 'PUT' })).status).toBe(401);
    expect(
      (await fetch(`${h.app.url}/v1/internal/integrity-checks`, { method: 'POST', headers: { 'x-service-key': 'wrong' } })).status,
    ).toBe(401);
    expect((await fetch(`${h.app.url}/health`)).status).toBe(200);
    // The retired direct transfer: money moves through intents only, even with a valid key.
    expect((await h.call('POST', '/v1/transactions', { sourceAccountId: 'x', amount: 1 })).status).toBe(404);
    const tech = await h.call('GET', '/v1/internal/technical-accounts?currency=XAF');
    expect(tech.body.map((a: { accountType: string }) => a.accountType).sort()).toEqual([
      'agent_commission',
      'black',
      'fee_collection',
      'suspense',
      'treasury',
    ]);
  });
});
