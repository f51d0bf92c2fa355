import { randomUUID } from 'node:crypto';
import { MoneyPlatform, type TestUser, newPhone, pay } from '../../../test/e2e/money-platform';
import { staffSignIn, staffToken } from './backoffice-transactions-support';
import type { Json } from './platform-harness';

const ADMIN = { phone: '+237699000001', pin: '4826' };

/**
 * Transactions for staff through /api (docs/operators.md "Payments and the payment story"): the
 * search over every operation by reference, phone, account, type, status, amount and date, in
 * stable cursor pages, and the story of one payment (ledger journal, risk, fee, commission, SMS,
 * partner order). The real auth, ledger, partners, dispatcher and orchestrator; every call through
 * the gateway.
 */
describe('back office: transactions', () => {
  const p = new MoneyPlatform();
  const call = p.call.bind(p);
  const signIn = staffSignIn(call);
  const staff = (admin: string, role: string): Promise<string> => staffToken(call, admin, role, newPhone(), signIn);

  let support: string;
  let auditor: string;
  let agent: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let startedAt: string;
  let cashIn: Json;
  let transfer: Json;
  let qrPayment: Json;
  let orderId: string;

  const search = async (query: string, token = support): Promise<Json> => {
    const res = await p.call('GET', `/api/backoffice/transactions?${query}`, { token });
    expect(res.status).toBe(200);
    return res.body;
  };
  const refs = (page: Json): string[] => page.items.map((i: Json) => i.referenceId);

  beforeAll(async () => {
    // the partner's keys are set-up here: issued at once (four eyes on keys: partner-links.test.ts)
    await p.start({ partners: true, orchestratorEnv: { APPROVALS_ONE_PERSON_ACTIONS: 'PARTNER_KEY_ISSUE,PARTNER_KEY_REVOKE' } });
    startedAt = new Date().toISOString();
    const admin = await signIn(ADMIN.phone, ADMIN.pin);
    [support, auditor] = await Promise.all([staff(admin, 'SUPPORT'), staff(admin, 'AUDITOR')]);
    [agent, alice, bob] = await Promise.all([
      p.register('AGENT', { firstName: 'Kofi' }),
      p.register('CUSTOMER', { firstName: 'Alice' }),
      p.register('CUSTOMER', { firstName: 'Bob' }),
    ]);
    await p.fund(agent.accounts.XAF, 1_000_000);
    cashIn = (await pay(p, agent, { type: 'CASH_IN', amount: 100_000, clientPhone: alice.phone, clientCountryCode: '+237' })).confirmed!
      .body;
    transfer = (await pay(p, alice, { type: 'TRANSFER', amount: 20_000, clientPhone: bob.phone, description: 'Rent' })).confirmed!.body;

    // a partner's order, paid by Alice with its QR
    const integration = await p.call('POST', '/api/admin/partners/integrations', {
      token: admin,
      body: { name: 'Caisse Rapide', technicalContactEmail: 'tech@pos.example', webhookUrl: 'https://pos.example/hooks' },
    });
    const key: string = integration.body.apiKeys.live.key;
    const shop = await p.register('MERCHANT');
    const partner = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      p.call(method, `/api/partners-public${path}`, { token: key, body, headers });
    const request = await partner('POST', '/connections/request', { merchantPhone: shop.phone, scopes: ['orders.write', 'orders.read'] });
    await p.call('POST', `/api/merchant/connections/${request.body.connectionId}/accept`, { token: shop.token });
    const order = await partner(
      'POST',
      '/orders',
      { merchantId: shop.merchantId, amount: 4_500, description: '3 sandwiches' },
      { 'idempotency-key': randomUUID() },
    );
    expect(order.status).toBe(201);
    orderId = order.body.orderId;
    qrPayment = (await pay(p, alice, { type: 'TRANSFER', amount: 4_500, qrToken: order.body.qrToken })).confirmed!.body;
    expect([cashIn.referenceId, transfer.referenceId, qrPayment.referenceId].every(Boolean)).toBe(true);
  }, 60_000);
  afterAll(() => p.stop());

  it('finds a payment by reference, with its parties', async () => {
    const page = await search(`reference=${transfer.referenceId}`);
    expect(page.items).toEqual([
      expect.objectContaining({
        referenceId: transfer.referenceId,
        type: 'TRANSFER',
        operationType: 'TRANSFER',
        status: 'SUCCEEDED',
        amount: 20_000,
        currency: 'XAF',
        sourceAccountId: alice.accounts.XAF,
        destinationAccountId: bob.accounts.XAF,
        payer: expect.objectContaining({ userId: alice.userId, phone: alice.phone }),
        payee: expect.objectContaining({ userId: bob.userId, phone: bob.phone }),
        reversedBy: null,
      }),
    ]);
    expect(page.nextCursor).toBeNull();
  });

  it('finds what a phone’s person paid and received, newest first; an unknown phone finds nothing', async () => {
    expect(refs(await search(`phone=${encodeURIComponent(alice.phone)}`))).toEqual([
      qrPayment.referenceId,
      transfer.referenceId,
      cashIn.referenceId,
    ]);
    expect(refs(await search(`phone=${encodeURIComponent(bob.phone)}`))).toEqual([transfer.referenceId]);
    const cash = await search(`phone=${encodeURIComponent(agent.phone)}&type=CASH_IN`);
    expect(cash.items).toEqual([expect.objectContaining({ referenceId: cashIn.referenceId, agentCode: agent.agentCode })]);
    expect((await search(`phone=${encodeURIComponent(newPhone())}`)).items).toEqual([]);
    expect(refs(await search(`accountId=${bob.accounts.XAF}`))).toEqual([transfer.referenceId]);
  });

  it('narrows by amount range, date range and status', async () => {
    const phone = encodeURIComponent(alice.phone);
    expect(refs(await search(`phone=${phone}&minAmount=20000&maxAmount=20000`))).toEqual([transfer.referenceId]);
    expect(refs(await search(`phone=${phone}&minAmount=4500&maxAmount=99999`))).toEqual([qrPayment.referenceId, transfer.referenceId]);
    const later = new Date(Date.now() + 60_000).toISOString();
    expect(refs(await search(`phone=${phone}&from=${startedAt}&to=${later}`))).toHaveLength(3);
    expect((await search(`phone=${phone}&from=${later}`)).items).toEqual([]);
    expect((await search(`phone=${phone}&to=${startedAt}`)).items).toEqual([]);
    expect((await search(`phone=${phone}&status=FAILED`)).items).toEqual([]);
  });

  it('pages stably: one line a page gives the whole list, in order, then a null cursor', async () => {
    const all = await search(`phone=${encodeURIComponent(alice.phone)}`);
    const walked: Json[] = [];
    let cursor: string | null = null;
    do {
      const page: Json = await search(`phone=${encodeURIComponent(alice.phone)}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.items.length).toBeLessThanOrEqual(1);
      walked.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    expect(walked).toEqual(all.items);
  });

  it('tells the story of a transfer: intent and its events, risk, fee quoted and charged, balanced journal, SMS', async () => {
    const res = await p.call('GET', `/api/backoffice/transactions/${transfer.referenceId}/story`, { token: support });
    expect(res.status).toBe(200);
    const story = res.body;
    expect(story.ledger).toMatchObject({
      unavailable: null,
      operation: expect.objectContaining({ referenceId: transfer.referenceId, status: 'SUCCEEDED' }),
      balanced: true,
    });
    expect(story.ledger.events.map((e: Json) => e.toStatus)).toEqual(['CREATED', 'PIN_VERIFIED', 'SUCCEEDED']);
    expect(story.ledger.debits).toBe(story.ledger.credits);
    // the payment and its fee, each entry matched by its counterpart
    expect(story.fee.charged.fee).toBeGreaterThan(0);
    expect(story.ledger.debits).toBe(20_000 + story.fee.charged.fee);
    expect(story.ledger.entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ accountId: alice.accounts.XAF, direction: 'DEBIT', amount: 20_000 }),
        expect.objectContaining({ accountId: bob.accounts.XAF, direction: 'CREDIT', amount: 20_000 }),
      ]),
    );
    expect(story.payment).toMatchObject({ unavailable: null, operationType: 'TRANSFER', stage: 'SETTLED', description: 'Rent' });
    expect(story.risk.decisions.map((d: Json) => [d.stage, d.outcome])).toEqual([
      ['CREATE', 'ACCEPT'],
      ['CONFIRM', 'ACCEPT'],
    ]);
    expect(story.fee).toMatchObject({
      unavailable: null,
      quote: expect.objectContaining({ fee: story.fee.charged.fee }),
      charged: expect.objectContaining({ rule: 'QUOTE_HONOURED' }),
    });
    expect(story.commission).toMatchObject({ unavailable: null, agentCode: null });
    expect(story.sms.messages.map((m: Json) => m.to).sort()).toEqual([alice.phone, bob.phone].sort());
    expect(story.sms.messages.every((m: Json) => m.text.includes(transfer.referenceId))).toBe(true);
    expect(story.partnerOrder).toEqual({ unavailable: null, order: null });
    expect(story.webhooks).toEqual({ unavailable: null, events: [] });
  });

  it('tells the commission of a cash-in, and the partner order a QR payment paid with its webhook deliveries', async () => {
    const cash = (await p.call('GET', `/api/backoffice/transactions/${cashIn.referenceId}/story`, { token: support })).body;
    expect(cash.commission).toMatchObject({ unavailable: null, agentCode: agent.agentCode, accountId: agent.commission.XAF });
    expect(cash.commission.amount).toBeGreaterThan(0);
    expect(cash.commission.credited).toBe(cash.commission.amount);

    // the order turns paid, and its order.paid event reaches the dispatcher, which tries to deliver it
    let story: Json = null;
    const delivered = (s: Json) => s?.partnerOrder.order?.status === 'paid' && s.webhooks.events?.[0]?.delivery?.attempts.length > 0;
    for (let i = 0; i < 100 && !delivered(story); i++) {
      story = (await p.call('GET', `/api/backoffice/transactions/${qrPayment.referenceId}/story`, { token: auditor })).body;
      expect([story.partnerOrder.unavailable, story.webhooks.unavailable]).toEqual([null, null]);
      if (!delivered(story)) await new Promise((r) => setTimeout(r, 100));
    }
    expect(story.partnerOrder.order).toMatchObject({
      orderId,
      status: 'paid',
      amount: 4_500,
      integrationName: 'Caisse Rapide',
      description: '3 sandwiches',
    });
    expect(story.webhooks.events[0].ref).toMatchObject({ type: 'order.paid', subjectId: orderId });
    expect(story.webhooks.events[0].delivery.attempts[0]).toEqual(expect.objectContaining({ attemptedAt: expect.any(String) }));
  });

  it('marks a part it cannot read as unavailable with its code, and answers the rest', async () => {
    // a second gateway whose partners service is unreachable (nothing listens on port 9)
    const cut = await p.bootGateway({ PARTNERS_URL: 'http://127.0.0.1:9' });
    const res = await p.call('GET', `/api/backoffice/transactions/${qrPayment.referenceId}/story`, { token: support, via: cut });
    expect(res.status).toBe(200);
    expect(res.body.partnerOrder).toEqual({ unavailable: 'UPSTREAM_UNAVAILABLE', order: null });
    expect(res.body.webhooks).toEqual({ unavailable: 'UPSTREAM_UNAVAILABLE', events: null });
    expect(res.body.ledger).toMatchObject({ unavailable: null, balanced: true });
    expect(res.body.sms.messages).toHaveLength(2);
  });

  it('refuses bad filters with their field codes, and an unknown payment with TRANSACTION_NOT_FOUND', async () => {
    const codes = async (query: string): Promise<string[]> => {
      const res = await p.call('GET', `/api/backoffice/transactions?${query}`, { token: support });
      expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_ERROR']);
      return res.body.errors.map((e: Json) => `${e.field}:${e.code}`);
    };
    expect(await codes('reference=MMP-1')).toEqual(['reference:INVALID_REFERENCE']);
    expect(await codes('phone=690000001')).toEqual(['phone:INVALID_PHONE_FORMAT']);
    expect(await codes('accountId=42')).toEqual(['accountId:INVALID_UUID']);
    expect(await codes('type=REFUND')).toEqual(['type:INVALID_TYPE']);
    expect(await codes('status=DONE')).toEqual(['status:INVALID_STATUS']);
    expect(await codes('minAmount=abc')).toEqual(['minAmount:INVALID_AMOUNT']);
    expect(await codes('maxAmount=0')).toEqual(['maxAmount:INVALID_AMOUNT']);
    expect(await codes('minAmount=500&maxAmount=100')).toEqual(['maxAmount:INVALID_AMOUNT_RANGE']);
    expect(await codes('from=2026-13-01')).toEqual(['from:INVALID_DATE']);
    expect(await codes(`from=${startedAt}&to=${startedAt}`)).toEqual(['to:INVALID_DATE_RANGE']);
    expect(await codes('cursor=not-a-cursor')).toEqual(['cursor:INVALID_CURSOR']);
    expect(await codes('limit=0')).toEqual(['limit:INVALID_LIMIT']);
    for (const key of ['MMPTX2611220A1B2C3', randomUUID(), 'not-a-reference']) {
      const res = await p.call('GET', `/api/backoffice/transactions/${key}/story`, { token: support });
      expect([res.status, res.body.code]).toEqual([404, 'TRANSACTION_NOT_FOUND']);
    }
  });

  it('is open to support and auditors; a customer is refused with the permission it lacks', async () => {
    expect((await p.call('GET', `/api/backoffice/transactions?reference=${transfer.referenceId}`, { token: auditor })).status).toBe(200);
    for (const path of ['/api/backoffice/transactions', `/api/backoffice/transactions/${transfer.referenceId}/story`]) {
      const res = await p.call('GET', path, { token: alice.token });
      expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
      expect(res.body.message).toContain('operations.read');
    }
  });
});
