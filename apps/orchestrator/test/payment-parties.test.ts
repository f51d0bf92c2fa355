import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { MoneyPlatform, type TestUser, newPhone } from '../../../test/e2e/money-platform';
import type { AuthUser } from '../src/access/permissions';
import type { CreateIntentDto } from '../src/intents/dto/create-intent.dto';
import { IntentPlanner } from '../src/intents/intent-planner';
import { PAYMENT_PARTIES, type PaymentPartiesPort } from '../src/payment-parties/payment-parties.port';

/** The text every read of a customer with its profile and accounts runs (customers.service.ts SELECT). */
const CUSTOMER_READ = /FROM orchestrator\.customers c JOIN orchestrator\.profiles p/;

/**
 * PAYMENT_PARTIES on the real database: the initiator (by user id) and the counterparty (by phone)
 * of a create come from one customer statement, mapped as the single reads map them.
 */
describe('payment parties: initiator and counterparty in one read', () => {
  const p = new MoneyPlatform();
  let parties: PaymentPartiesPort;
  let planner: IntentPlanner;
  let db: DataSource;
  let alice: TestUser;
  let bob: TestUser;
  let shop: TestUser;
  let agent: TestUser;

  beforeAll(async () => {
    await p.start();
    [alice, bob, shop, agent] = await Promise.all([
      p.register('CUSTOMER'),
      p.register('CUSTOMER'),
      p.register('MERCHANT'),
      p.register('AGENT'),
    ]);
    parties = p.gateway.app.get<PaymentPartiesPort>(PAYMENT_PARTIES, { strict: false });
    planner = p.gateway.app.get(IntentPlanner, { strict: false });
    db = p.gateway.app.get(DataSource, { strict: false });
  });
  afterAll(() => p.stop());

  /** A statement's text, also of a prepared one (sent as pg's query config { name, text }). */
  const sqlText = (sql: unknown) => (typeof sql === 'string' ? sql : String((sql as { text?: string }).text));

  /** What `run` answers, and how many customer reads it ran. */
  async function counted<T>(run: () => Promise<T>): Promise<{ result: T; customerReads: number }> {
    const spy = jest.spyOn(db, 'query');
    try {
      const result = await run();
      return { result, customerReads: spy.mock.calls.filter(([sql]) => CUSTOMER_READ.test(sqlText(sql))).length };
    } finally {
      spy.mockRestore();
    }
  }

  it('both found: each party as byUserId maps it, from one customer statement', async () => {
    const { result, customerReads } = await counted(() => parties.initiatorAndCounterparty(alice.userId, bob.phone));
    expect(customerReads).toBe(1);
    expect(result.initiator).toEqual(await parties.byUserId(alice.userId));
    expect(result.counterparty).toEqual(await parties.byUserId(bob.userId));
    expect(result.counterparty).toMatchObject({
      userId: bob.userId,
      phone: bob.phone,
      role: 'CUSTOMER',
      accounts: { XAF: bob.accounts.XAF },
    });
  });

  it('an agent and a merchant keep their agent and merchant fields', async () => {
    const { initiator, counterparty } = await parties.initiatorAndCounterparty(agent.userId, shop.phone);
    expect(initiator).toEqual(await parties.byUserId(agent.userId));
    expect(initiator?.agent).toMatchObject({ agentId: agent.agentId, agentCode: agent.agentCode });
    expect(counterparty).toEqual(await parties.byUserId(shop.userId));
    expect(counterparty?.merchantId).toBe(shop.merchantId);
  });

  it('initiator missing: no initiator, the counterparty still found', async () => {
    const { initiator, counterparty } = await parties.initiatorAndCounterparty(randomUUID(), bob.phone);
    expect(initiator).toBeUndefined();
    expect(counterparty?.userId).toBe(bob.userId);
  });

  it('phone unknown: the initiator found, no counterparty', async () => {
    const { initiator, counterparty } = await parties.initiatorAndCounterparty(alice.userId, newPhone());
    expect(initiator?.userId).toBe(alice.userId);
    expect(counterparty).toBeUndefined();
  });

  it("the initiator's own phone: the same party on both sides", async () => {
    const { result, customerReads } = await counted(() => parties.initiatorAndCounterparty(alice.userId, alice.phone));
    expect(customerReads).toBe(1);
    expect(result.initiator?.userId).toBe(alice.userId);
    expect(result.counterparty).toEqual(result.initiator);
  });

  describe('the planner', () => {
    const userOf = (u: { userId: string }): AuthUser =>
      ({ userId: u.userId, sessionId: randomUUID(), role: 'CUSTOMER', permissions: [], accessToken: '' }) as unknown as AuthUser;
    const dto = (patch: Partial<CreateIntentDto>): CreateIntentDto =>
      ({ type: 'TRANSFER', amount: 1_000, idempotencyKey: randomUUID(), ...patch }) as CreateIntentDto;
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => 'planned',
        (e: { code?: string; message?: string }) => e.code,
      );

    it('a transfer by phone reads its two parties in one customer statement', async () => {
      const { result, customerReads } = await counted(() => planner.plan(userOf(alice), dto({ clientPhone: bob.phone })));
      expect(customerReads).toBe(1);
      expect([result.payer.userId, result.payee.userId, result.operationType]).toEqual([alice.userId, bob.userId, 'TRANSFER']);
    });

    it('a cash-in and a cash-out by phone find the customer with the agent', async () => {
      const cashIn = await planner.plan(userOf(agent), dto({ type: 'CASH_IN', clientPhone: bob.phone }));
      expect([cashIn.payer.userId, cashIn.payee.userId, cashIn.agent?.agentId]).toEqual([agent.userId, bob.userId, agent.agentId]);
      const cashOut = await planner.plan(userOf(agent), dto({ type: 'CASH_OUT', clientPhone: bob.phone }));
      expect([cashOut.payer.userId, cashOut.payee.userId, cashOut.requiresOtp]).toEqual([bob.userId, agent.userId, true]);
    });

    it('refusals keep their order: the initiator first, then the type, the phone, the counterparty', async () => {
      const unknown = newPhone();
      expect(await refusal(planner.plan(userOf({ userId: randomUUID() }), dto({ clientPhone: unknown })))).toBe('FORBIDDEN');
      expect(await refusal(planner.plan(userOf(agent), dto({ clientPhone: unknown })))).toBe('INTENT_TYPE_NOT_ALLOWED');
      expect(await refusal(planner.plan(userOf(alice), dto({ clientPhone: unknown, clientCountryCode: '+241' })))).toBe('VALIDATION_ERROR');
      expect(await refusal(planner.plan(userOf(alice), dto({})))).toBe('RECIPIENT_REQUIRED');
      expect(await refusal(planner.plan(userOf(alice), dto({ clientPhone: unknown })))).toBe('RECIPIENT_NOT_FOUND');
      expect(await refusal(planner.plan(userOf(agent), dto({ type: 'CASH_IN', clientPhone: unknown })))).toBe('RECIPIENT_NOT_FOUND');
      expect(await refusal(planner.plan(userOf(agent), dto({ type: 'CASH_OUT', clientPhone: unknown })))).toBe('RECIPIENT_NOT_FOUND');
      expect(await refusal(planner.plan(userOf(alice), dto({ clientPhone: alice.phone })))).toBe('SELF_TRANSFER');
      expect(await refusal(planner.plan(userOf(agent), dto({ type: 'CASH_IN', clientPhone: agent.phone })))).toBe('SELF_TRANSFER');
      expect(await refusal(planner.plan(userOf(alice), dto({ clientPhone: agent.phone })))).toBe('RECIPIENT_NOT_ELIGIBLE');
    });
  });
});
