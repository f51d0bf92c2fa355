import { randomUUID } from 'node:crypto';
import { type MoneyPlatform as Platform, MoneyPlatform, type TestUser, pay } from './money-platform';

/**
 * The public money flow end to end, every service real: cash-in, transfer, cash-out with a fresh
 * withdrawal QR and with an OTP, payment of a partner's order by its QR. After each step: every balance, the fee on FEE_COLLECTION, the
 * commission on the agent's commission account (from TREASURY), and the ledger invariants.
 */
describe('money journeys through the gateway', () => {
  const p: Platform = new MoneyPlatform();
  let agent: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let fees: string;
  let treasury: string;

  beforeAll(async () => {
    // the partner's keys are set-up here: issued at once (four eyes on keys: partner-links.test.ts)
    await p.start({ partners: true, orchestratorEnv: { APPROVALS_ONE_PERSON_ACTIONS: 'PARTNER_KEY_ISSUE,PARTNER_KEY_REVOKE' } });
    [agent, alice, bob] = await Promise.all([
      p.register('AGENT', { firstName: 'Kofi' }),
      p.register('CUSTOMER', { firstName: 'Alice' }),
      p.register('CUSTOMER', { firstName: 'Bob' }),
    ]);
    await p.fund(agent.accounts.XAF, 1_000_000);
    [fees, treasury] = await Promise.all([p.technical('fee_collection'), p.technical('treasury')]);
  });
  afterAll(() => p.stop());

  async function expectClean(): Promise<void> {
    const inv = await p.invariants();
    expect(inv).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
  }

  async function balances(...accounts: string[]): Promise<number[]> {
    return Promise.all(accounts.map(async (a) => (await p.balance(a)).balance));
  }

  it('cash-in: the agent credits Alice from its float, the platform pays the agent its commission', async () => {
    const [floatBefore, feesBefore, treasuryBefore] = await balances(agent.accounts.XAF, fees, treasury);
    const { created, pin, confirmed } = await pay(p, agent, {
      type: 'CASH_IN',
      amount: 100_000,
      clientPhone: alice.phone,
      clientCountryCode: '+237',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'CREATED', requiresOtp: false, amount: 100_000, fee: 0, total: 100_000, currency: 'XAF' });
    expect(created.body.counterparty).toEqual({ displayName: 'Alice T.', phone: expect.stringContaining('•') });
    expect(pin!.body).toEqual({ intentId: created.body.intentId, status: 'PIN_VERIFIED' });
    expect(confirmed!.status).toBe(200);
    expect(confirmed!.body).toEqual({
      intentId: created.body.intentId,
      status: 'SUCCEEDED',
      transactionId: expect.any(String),
      referenceId: expect.stringMatching(/^[A-Z]{3}TX\d{6}[A-Z0-9]{7}$/),
      amount: 100_000,
      fees: 0,
      currency: 'XAF',
      completedAt: expect.any(String),
    });
    // 0.5 % commission on a cash-in (default grid): 500
    expect(await balances(alice.accounts.XAF, agent.accounts.XAF, agent.commission.XAF, fees, treasury)).toEqual([
      100_000,
      floatBefore - 100_000,
      500,
      feesBefore,
      treasuryBefore - 500,
    ]);
    await expectClean();
  });

  it('transfer: Alice pays Bob 20 000, the 1 % fee goes to FEE_COLLECTION', async () => {
    const [feesBefore] = await balances(fees);
    const { created, confirmed } = await pay(p, alice, { type: 'TRANSFER', amount: 20_000, clientPhone: bob.phone, description: 'Rent' });
    expect(created.body).toMatchObject({ fee: 200, total: 20_200 });
    expect(confirmed!.status).toBe(200);
    expect(confirmed!.body).toMatchObject({ status: 'SUCCEEDED', amount: 20_000, fees: 200 });
    expect(await balances(alice.accounts.XAF, bob.accounts.XAF, fees)).toEqual([100_000 - 20_200, 20_000, feesBefore + 200]);
    await expectClean();
  });

  it('a confirm before verify-pin is refused having decided nothing (risk, fee, hold, ledger request): the confirm after the PIN judges afresh', async () => {
    const carol = await p.register('CUSTOMER', { firstName: 'Carol' });
    const key = randomUUID();
    const created = await p.call('POST', '/api/v1/intents', {
      token: alice.token,
      body: { idempotencyKey: key, type: 'TRANSFER', amount: 1_000, clientPhone: carol.phone },
    });
    expect(created.status).toBe(201);
    const id = created.body.intentId as string;
    const early = await p.call('POST', `/api/v1/intents/${id}/confirm`, { token: alice.token });
    expect([early.status, early.body.code]).toEqual([400, 'INVALID_INTENT_TRANSITION']);
    const decided = async () =>
      (
        await p.sql.query(
          `SELECT (SELECT array_agg(stage ORDER BY stage) FROM orchestrator.risk_decisions WHERE operation_id::text = $1) AS stages,
                  (SELECT requoted_at IS NOT NULL FROM orchestrator.fee_quotes WHERE operation_id::text = $1) AS requoted,
                  (SELECT confirm_request IS NOT NULL FROM orchestrator.payment_intents WHERE idempotency_key::text = $1) AS fixed,
                  (SELECT count(*)::int FROM orchestrator.limit_usage WHERE operation_id::text = $1) AS holds`,
          [key],
        )
      ).rows[0];
    expect(await decided()).toEqual({ stages: ['CREATE'], requoted: false, fixed: false, holds: 0 });

    expect((await p.call('POST', `/api/v1/intents/${id}/verify-pin`, { token: alice.token, body: { pin: alice.pin } })).status).toBe(200);
    const confirmed = await p.call('POST', `/api/v1/intents/${id}/confirm`, { token: alice.token });
    expect(confirmed.body).toMatchObject({ status: 'SUCCEEDED', amount: 1_000 });
    expect(await decided()).toEqual({ stages: ['CONFIRM', 'CREATE'], requoted: true, fixed: true, holds: 1 });
    await expectClean();
  });

  it('cash-out with OTP: the agent asks, the customer reads the code out, the agent confirms with its PIN', async () => {
    const [floatBefore, commissionBefore, feesBefore] = await balances(agent.accounts.XAF, agent.commission.XAF, fees);
    const created = await p.call('POST', '/api/v1/intents', {
      token: agent.token,
      body: { type: 'CASH_OUT', amount: 10_000, clientPhone: bob.phone, idempotencyKey: randomUUID() },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ requiresOtp: true, fee: 200, total: 10_200 });
    const id = created.body.intentId;
    // The PIN step is refused before the OTP one.
    const early = await p.call('POST', `/api/v1/intents/${id}/verify-pin`, { token: agent.token, body: { pin: agent.pin } });
    expect(early.status).toBe(400);
    expect(early.body.code).toBe('INVALID_INTENT_TRANSITION');

    const sent = await p.call('POST', `/api/v1/intents/${id}/send-otp`, { token: agent.token });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      intentId: id,
      status: 'OTP_SENT',
      sentTo: expect.stringContaining('•'),
      expiresInSec: expect.any(Number),
    });
    const code = await p.lastOtp(bob.phone);
    const otp = await p.call('POST', `/api/v1/intents/${id}/verify-otp`, { token: agent.token, body: { otpCode: code } });
    expect(otp.body).toEqual({ intentId: id, status: 'OTP_VERIFIED' });
    const pin = await p.call('POST', `/api/v1/intents/${id}/verify-pin`, { token: agent.token, body: { pin: agent.pin } });
    expect(pin.body).toEqual({ intentId: id, status: 'PIN_VERIFIED' });
    const confirmed = await p.call('POST', `/api/v1/intents/${id}/confirm`, { token: agent.token });
    expect(confirmed.status).toBe(200);
    // 2 % fee on 10 000 = 200; commission 0.8 % = 80
    expect(await balances(bob.accounts.XAF, agent.accounts.XAF, agent.commission.XAF, fees)).toEqual([
      20_000 - 10_200,
      floatBefore + 10_000,
      commissionBefore + 80,
      feesBefore + 200,
    ]);
    await expectClean();
  });

  it('cash-out with a fresh withdrawal QR: no OTP, the code works once', async () => {
    const qr = await p.call('POST', '/api/v1/withdrawal-qr', { token: alice.token, body: { amount: 5_000 } });
    expect(qr.status).toBe(201);
    expect(qr.body).toMatchObject({ qrToken: expect.stringMatching(/^wqr_[0-9a-f]{64}$/), currency: 'XAF', amount: 5_000 });
    const [aliceBefore, floatBefore] = await balances(alice.accounts.XAF, agent.accounts.XAF);
    const { created, confirmed } = await pay(p, agent, { type: 'CASH_OUT', amount: 5_000, qrToken: qr.body.qrToken });
    expect(created.body).toMatchObject({ requiresOtp: false, fee: 100, counterparty: { displayName: 'Alice T.' } });
    expect(confirmed!.status).toBe(200);
    expect(await balances(alice.accounts.XAF, agent.accounts.XAF)).toEqual([aliceBefore - 5_100, floatBefore + 5_000]);

    const again = await p.call('POST', '/api/v1/intents', {
      token: agent.token,
      body: { type: 'CASH_OUT', amount: 5_000, qrToken: qr.body.qrToken, idempotencyKey: randomUUID() },
    });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('WITHDRAWAL_QR_INVALID');
    await expectClean();
  });

  it("merchant QR payment: the customer pays a partner's order by its QR, the order turns paid, the QR cannot pay twice", async () => {
    const admin = await p.adminToken();
    const integration = await p.call('POST', '/api/admin/partners/integrations', {
      token: admin,
      body: { name: 'Caisse Rapide', technicalContactEmail: 'tech@pos.example', webhookUrl: 'https://pos.example/hooks' },
    });
    expect(integration.status).toBe(201);
    const key: string = integration.body.apiKeys.live.key;
    const shop = await p.register('MERCHANT');
    const partner = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      p.call(method, `/api/partners-public${path}`, { token: key, body, headers });
    const request = await partner('POST', '/connections/request', { merchantPhone: shop.phone, scopes: ['orders.write', 'orders.read'] });
    expect(request.status).toBe(200);
    const accepted = await p.call('POST', `/api/merchant/connections/${request.body.connectionId}/accept`, { token: shop.token });
    expect(accepted.body.status).toBe('active');
    const order = await partner(
      'POST',
      '/orders',
      { merchantId: shop.merchantId, amount: 4_500, description: '3 sandwiches' },
      {
        'idempotency-key': randomUUID(),
      },
    );
    expect(order.status).toBe(201);

    const wrong = await p.call('POST', '/api/v1/intents', {
      token: alice.token,
      body: { type: 'TRANSFER', amount: 4_000, qrToken: order.body.qrToken, idempotencyKey: randomUUID() },
    });
    expect([wrong.status, wrong.body.code]).toEqual([422, 'ORDER_AMOUNT_MISMATCH']);

    const [aliceBefore] = await balances(alice.accounts.XAF);
    const { created, confirmed } = await pay(p, alice, { type: 'TRANSFER', amount: 4_500, qrToken: order.body.qrToken });
    expect(created.body).toMatchObject({ fee: 0, counterparty: { displayName: `Boutique ${shop.phone.slice(-4)}` } });
    expect(confirmed!.status).toBe(200);
    expect(await balances(alice.accounts.XAF, shop.accounts.XAF)).toEqual([aliceBefore - 4_500, 4_500]);
    await expectClean();

    let status = '';
    for (let i = 0; i < 50 && status !== 'paid'; i++) {
      status = (await partner('GET', `/orders/${order.body.orderId}`)).body.status;
      if (status !== 'paid') await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe('paid');
    const again = await p.call('POST', '/api/v1/intents', {
      token: bob.token,
      body: { type: 'TRANSFER', amount: 4_500, qrToken: order.body.qrToken, idempotencyKey: randomUUID() },
    });
    expect([again.status, again.body.code]).toEqual([422, 'ORDER_NOT_PAYABLE']);
    const receipt = await p.call('GET', `/api/v1/transactions/${confirmed!.body.referenceId}`, { token: shop.token });
    expect(receipt.body).toMatchObject({
      operationType: 'MERCHANT_PAYMENT',
      direction: 'CREDIT',
      description: '3 sandwiches',
      amount: 4_500,
    });
  });
});
