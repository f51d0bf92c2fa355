import { randomUUID } from 'node:crypto';
import { ConfigVersionsService } from '../../apps/orchestrator/src/config-api/config-versions.service';
import type { ConfigSection } from '../../apps/orchestrator/src/config-api/config-sections';
import { BlocklistService } from '../../apps/orchestrator/src/risk/blocklist.service';
import { MoneyPlatform, type TestUser, pay } from './money-platform';

/**
 * The business rules the public flow applies around the ledger besides limits (money-limits.test.ts):
 * risk refusals at create and at confirm, which fee wins when the grid changes between the two, and
 * wrong PIN / OTP attempts.
 */
describe('money rules: risk, fees, attempts', () => {
  const p = new MoneyPlatform();
  let versions: ConfigVersionsService;
  let agent: TestUser;
  let fees: string;

  beforeAll(async () => {
    await p.start();
    versions = p.gateway.app.get(ConfigVersionsService);
    agent = await p.register('AGENT');
    await p.fund(agent.accounts.XAF, 3_000_000);
    fees = await p.technical('fee_collection');
  });
  afterAll(() => p.stop());

  /** A customer with money, who has already paid `payee` once (so a large amount is not a first payment to a stranger). */
  async function payer(amount: number, payee?: TestUser): Promise<TestUser> {
    const user = await p.register('CUSTOMER');
    await p.fund(user.accounts.XAF, amount);
    if (payee) expect((await pay(p, user, { type: 'TRANSFER', amount: 100, clientPhone: payee.phone })).confirmed!.status).toBe(200);
    return user;
  }

  const create = (user: TestUser, body: Record<string, unknown>) =>
    p.call('POST', '/api/v1/intents', { token: user.token, body: { idempotencyKey: randomUUID(), ...body } });

  async function changeConfig<S extends ConfigSection>(section: S, change: (doc: never) => unknown): Promise<() => Promise<void>> {
    const active = await versions.active(section);
    await versions.append(section, {
      baseVersion: active.version,
      document: change(structuredClone(active.document) as never) as never,
      createdBy: 'test',
      reason: 'test change',
    });
    return async () => {
      const now = await versions.active(section);
      await versions.append(section, {
        baseVersion: now.version,
        document: active.document as never,
        createdBy: 'test',
        reason: 'test restore',
      });
    };
  }

  it('risk at create: a blocklisted recipient → 403 RISK_REJECTED (reason NOT_ALLOWED), nothing held', async () => {
    const mallory = await p.register('CUSTOMER');
    const alice = await payer(10_000);
    const entry = await p.gateway.app
      .get(BlocklistService)
      .add({ phone: mallory.phone, list: 'SANCTIONS', reason: 'test', addedBy: 'test' });
    const res = await create(alice, { type: 'TRANSFER', amount: 1_000, clientPhone: mallory.phone });
    expect([res.status, res.body.code]).toEqual([403, 'RISK_REJECTED']);
    expect(res.headers.get('x-risk-reason')).toBe('NOT_ALLOWED');
    expect(await p.balance(alice.accounts.XAF)).toEqual({ balance: 10_000, availableBalance: 10_000, frozenBalance: 0 });
    await p.gateway.app.get(BlocklistService).remove(entry.id, { removedBy: 'test', reason: 'done' });
  });

  it('risk at confirm: the recipient frozen after create → 403 RISK_REJECTED, the intent FAILED and its hold released', async () => {
    const bob = await p.register('CUSTOMER');
    const alice = await payer(10_000);
    const created = await create(alice, { type: 'TRANSFER', amount: 1_000, clientPhone: bob.phone });
    const id = created.body.intentId;
    expect((await p.call('POST', `/api/v1/intents/${id}/verify-pin`, { token: alice.token, body: { pin: alice.pin } })).status).toBe(200);
    expect(await p.balance(alice.accounts.XAF)).toMatchObject({ frozenBalance: 1_050 });
    await p.sql.query(`UPDATE orchestrator.customers SET status = 'frozen' WHERE id = $1`, [bob.customerId]);
    const res = await p.call('POST', `/api/v1/intents/${id}/confirm`, { token: alice.token });
    expect([res.status, res.body.code]).toEqual([403, 'RISK_REJECTED']);
    expect(res.headers.get('x-risk-reason')).toBe('COUNTERPARTY_UNAVAILABLE');
    expect((await p.call('GET', `/api/v1/intents/${id}`, { token: alice.token })).body.status).toBe('FAILED');
    expect(await p.balance(alice.accounts.XAF)).toEqual({ balance: 10_000, availableBalance: 10_000, frozenBalance: 0 });
  });

  it('a frozen customer cannot start a payment (403 RISK_REJECTED, ACCOUNT_FROZEN)', async () => {
    const bob = await p.register('CUSTOMER');
    const alice = await payer(10_000);
    await p.sql.query(`UPDATE orchestrator.customers SET status = 'frozen' WHERE id = $1`, [alice.customerId]);
    const res = await create(alice, { type: 'TRANSFER', amount: 1_000, clientPhone: bob.phone });
    expect([res.status, res.body.code, res.headers.get('x-risk-reason')]).toEqual([403, 'RISK_REJECTED', 'ACCOUNT_FROZEN']);
  });

  describe('the fee when the grid changes between create and confirm', () => {
    const flatTransfer = (fee: number) => (doc: { fees: Array<{ type: string; currency: string; bands: unknown[] }> }) => {
      doc.fees.find((g) => g.type === 'TRANSFER' && g.currency === 'XAF')!.bands = [{ from: 1, to: null, fixed: fee, rateBps: 0 }];
      return doc;
    };

    it.each([
      ['raised: the quoted fee is charged', 80, 50],
      ['lowered: the lower fee is charged', 10, 10],
    ])('grid %s', async (_name, newFee, charged) => {
      const bob = await p.register('CUSTOMER');
      const alice = await payer(10_000);
      const created = await create(alice, { type: 'TRANSFER', amount: 1_000, clientPhone: bob.phone });
      expect(created.body.fee).toBe(50);
      const id = created.body.intentId;
      await p.call('POST', `/api/v1/intents/${id}/verify-pin`, { token: alice.token, body: { pin: alice.pin } });
      const feesBefore = (await p.balance(fees)).balance;
      const restore = await changeConfig('pricing', flatTransfer(newFee));
      try {
        const confirmed = await p.call('POST', `/api/v1/intents/${id}/confirm`, { token: alice.token });
        expect(confirmed.body).toMatchObject({ status: 'SUCCEEDED', fees: charged });
        expect((await p.balance(alice.accounts.XAF)).balance).toBe(10_000 - 1_000 - charged);
        expect((await p.balance(fees)).balance).toBe(feesBefore + charged);
      } finally {
        await restore();
      }
    });
  });

  it('wrong PINs leave the intent where it was; the third one fails it and releases the hold', async () => {
    const bob = await p.register('CUSTOMER');
    const alice = await payer(10_000);
    const id = (await create(alice, { type: 'TRANSFER', amount: 1_000, clientPhone: bob.phone })).body.intentId;
    const wrong = () => p.call('POST', `/api/v1/intents/${id}/verify-pin`, { token: alice.token, body: { pin: '9731' } });
    for (let i = 0; i < 2; i++) {
      const res = await wrong();
      expect([res.status, res.body.code]).toEqual([403, 'INVALID_PIN']);
      expect((await p.call('GET', `/api/v1/intents/${id}`, { token: alice.token })).body.status).toBe('CREATED');
    }
    const third = await wrong();
    expect([third.status, third.body.code]).toEqual([403, 'INTENT_ATTEMPTS_EXHAUSTED']);
    expect((await p.call('GET', `/api/v1/intents/${id}`, { token: alice.token })).body.status).toBe('FAILED');
    expect(await p.balance(alice.accounts.XAF)).toEqual({ balance: 10_000, availableBalance: 10_000, frozenBalance: 0 });
    const after = await p.call('POST', `/api/v1/intents/${id}/verify-pin`, { token: alice.token, body: { pin: alice.pin } });
    expect([after.status, after.body.code]).toEqual([400, 'INVALID_INTENT_TRANSITION']);
  });

  it("a PIN check auth refuses while the payer's other checks are in flight is relayed (429, Retry-After) and costs the intent no attempt", async () => {
    const bob = await p.register('CUSTOMER');
    const alice = await payer(10_000);
    const id = (await create(alice, { type: 'TRANSFER', amount: 1_000, clientPhone: bob.phone })).body.intentId;
    const inFlight = (n: number) =>
      p.sql.query(`UPDATE auth.users SET pin_checks_in_flight = $2, pin_checks_since = now() WHERE phone = $1`, [alice.phone, n]);
    const verify = (pin: string) => p.call('POST', `/api/v1/intents/${id}/verify-pin`, { token: alice.token, body: { pin } });
    // Five checks of Alice's PIN in flight elsewhere (her other intents, her app retrying).
    await inFlight(5);
    for (let i = 0; i < 3; i++) {
      const busy = await verify(alice.pin);
      expect([busy.status, busy.body.code, busy.headers.get('retry-after')]).toEqual([429, 'PIN_CHECK_IN_PROGRESS', '1']);
    }
    expect((await p.call('GET', `/api/v1/intents/${id}`, { token: alice.token })).body.status).toBe('CREATED');
    // Three refusals counted nothing: two wrong PINs later, the intent still takes the right one.
    await inFlight(0);
    for (let i = 0; i < 2; i++) expect((await verify('9731')).body.code).toBe('INVALID_PIN');
    const right = await verify(alice.pin);
    expect([right.status, right.body.status]).toEqual([200, 'PIN_VERIFIED']);
  });

  it('wrong OTPs on a cash-out: the intent stays OTP_SENT; the third wrong code fails it', async () => {
    const frank = await payer(20_000);
    const id = (await create(agent, { type: 'CASH_OUT', amount: 5_000, clientPhone: frank.phone })).body.intentId;
    expect((await p.call('POST', `/api/v1/intents/${id}/send-otp`, { token: agent.token })).status).toBe(200);
    const code = await p.lastOtp(frank.phone);
    const wrongCode = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 2; i++) {
      const res = await p.call('POST', `/api/v1/intents/${id}/verify-otp`, { token: agent.token, body: { otpCode: wrongCode } });
      expect([res.status, res.body.code]).toEqual([400, 'OTP_INVALID']);
    }
    expect((await p.call('GET', `/api/v1/intents/${id}`, { token: agent.token })).body.status).toBe('OTP_SENT');
    const third = await p.call('POST', `/api/v1/intents/${id}/verify-otp`, { token: agent.token, body: { otpCode: wrongCode } });
    expect([third.status, third.body.code]).toEqual([403, 'INTENT_ATTEMPTS_EXHAUSTED']);
    expect(await p.balance(frank.accounts.XAF)).toEqual({ balance: 20_000, availableBalance: 20_000, frozenBalance: 0 });
  });

  it('send-otp on an intent that needs none: 400 OTP_NOT_REQUIRED', async () => {
    const bob = await p.register('CUSTOMER');
    const alice = await payer(10_000);
    const id = (await create(alice, { type: 'TRANSFER', amount: 1_000, clientPhone: bob.phone })).body.intentId;
    const res = await p.call('POST', `/api/v1/intents/${id}/send-otp`, { token: alice.token });
    expect([res.status, res.body.code]).toEqual([400, 'OTP_NOT_REQUIRED']);
  });
});
