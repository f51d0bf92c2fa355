import { randomUUID } from 'node:crypto';
import { MoneyPlatform, type TestUser, pay } from './money-platform';

/**
 * A refusal must not tell one user another customer's balance. Through the gateway:
 * - the balance cap of a credited customer is refused to an agent or a sender without the room
 *   left (that room is the cap minus the customer's balance);
 * - the ledger's INSUFFICIENT_BALANCE reaches the agent of a cash-out by phone without amounts,
 *   while a customer debiting their own account still reads them.
 */
describe('money privacy: refusals do not disclose another customer’s balance', () => {
  const p = new MoneyPlatform();
  let agent: TestUser;

  beforeAll(async () => {
    await p.start();
    agent = await p.register('AGENT');
    await p.fund(agent.accounts.XAF, 3_000_000);
  });
  afterAll(() => p.stop());

  const create = (user: TestUser, body: Record<string, unknown>) =>
    p.call('POST', '/api/v1/intents', { token: user.token, body: { idempotencyKey: randomUUID(), ...body } });

  /** Neither header nor message carries a figure. */
  function expectNoAmount(res: { headers: Headers; body: { message: string } }): void {
    expect(res.headers.get('x-limit-allowed')).toBeNull();
    expect(res.body.message).not.toMatch(/\d/);
  }

  it('an agent cash-in above the balance cap of a TIER_1 customer (500 000): 422 LIMIT_BALANCE_CAP_EXCEEDED, no room stated', async () => {
    const dave = await p.register('CUSTOMER');
    await p.fund(dave.accounts.XAF, 437_125);
    const res = await create(agent, { type: 'CASH_IN', amount: 500_000, clientPhone: dave.phone });
    expect([res.status, res.body.code]).toEqual([422, 'LIMIT_BALANCE_CAP_EXCEEDED']);
    expectNoAmount(res);
    expect(JSON.stringify(res.body)).not.toContain('62875');
  });

  it('a transfer above the recipient’s cap: the sender is refused without the room either', async () => {
    const erin = await p.register('CUSTOMER');
    const sender = await p.register('CUSTOMER');
    await Promise.all([p.fund(erin.accounts.XAF, 499_000), p.fund(sender.accounts.XAF, 10_000)]);
    const res = await create(sender, { type: 'TRANSFER', amount: 5_000, clientPhone: erin.phone });
    expect([res.status, res.body.code]).toEqual([422, 'LIMIT_BALANCE_CAP_EXCEEDED']);
    expectNoAmount(res);
  });

  it('the cap reached between create and confirm: the confirm refusal states no room either', async () => {
    const fred = await p.register('CUSTOMER');
    await p.fund(fred.accounts.XAF, 400_000);
    const created = await create(agent, { type: 'CASH_IN', amount: 50_000, clientPhone: fred.phone });
    expect(created.status).toBe(201);
    const id = created.body.intentId;
    expect((await p.call('POST', `/api/v1/intents/${id}/verify-pin`, { token: agent.token, body: { pin: agent.pin } })).status).toBe(200);
    await p.fund(fred.accounts.XAF, 80_000);
    const res = await p.call('POST', `/api/v1/intents/${id}/confirm`, { token: agent.token });
    expect([res.status, res.body.code]).toEqual([422, 'LIMIT_BALANCE_CAP_EXCEEDED']);
    expectNoAmount(res);
  });

  it('an agent cash-out by phone above the customer’s balance: 422 INSUFFICIENT_BALANCE with no amounts', async () => {
    const gina = await p.register('CUSTOMER');
    await p.fund(gina.accounts.XAF, 12_345);
    const res = await create(agent, { type: 'CASH_OUT', amount: 50_000, clientPhone: gina.phone });
    expect([res.status, res.body.code]).toEqual([422, 'INSUFFICIENT_BALANCE']);
    expect(res.body.message).not.toMatch(/\d/);
    expect(JSON.stringify(res.body)).not.toContain('12345');
    expect(await p.balance(gina.accounts.XAF)).toEqual({ balance: 12_345, availableBalance: 12_345, frozenBalance: 0 });
  });

  it('a customer paying beyond their own balance still reads the available and required amounts', async () => {
    const hugo = await p.register('CUSTOMER');
    const ines = await p.register('CUSTOMER');
    await p.fund(hugo.accounts.XAF, 2_345);
    const { created } = await pay(p, hugo, { type: 'TRANSFER', amount: 5_000, clientPhone: ines.phone });
    expect([created.status, created.body.code]).toEqual([422, 'INSUFFICIENT_BALANCE']);
    expect(created.body.message).toContain('2345');
  });
});
