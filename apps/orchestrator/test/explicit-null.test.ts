import { randomUUID } from 'node:crypto';
import { MoneyPlatform, type TestUser } from '../../../test/e2e/money-platform';

/**
 * One rule for the platform (docs/architecture.md "Processes and ports"): an explicit null on a
 * field that may only be left out is refused with that field's code, never taken as "absent" and
 * never a 500; a field the API documents as nullable (the profile's email) takes it. Through the
 * gateway, as a client sends it.
 */
describe('public API: null where a value is optional', () => {
  const p = new MoneyPlatform();
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    await p.start();
    [alice, bob] = await Promise.all([p.register('CUSTOMER'), p.register('CUSTOMER')]);
    await p.fund(alice.accounts.XAF, 50_000);
  });
  afterAll(() => p.stop());

  const fieldError = (res: { status: number; body: any }, field: string, code: string) => {
    expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(res.body.errors).toEqual([expect.objectContaining({ field, code })]);
  };

  it('an intent with clientCountryCode null → 400 INVALID_COUNTRY_CODE on the field (was a 500), nothing held', async () => {
    const body = { type: 'TRANSFER', amount: 1_000, clientPhone: bob.phone, clientCountryCode: null, idempotencyKey: randomUUID() };
    fieldError(await p.call('POST', '/api/v1/intents', { token: alice.token, body }), 'clientCountryCode', 'INVALID_COUNTRY_CODE');
    expect(await p.balance(alice.accounts.XAF)).toEqual({ balance: 50_000, availableBalance: 50_000, frozenBalance: 0 });
  });

  it('a withdrawal code with amount null → 400 INVALID_AMOUNT; without amount it is a code for any amount', async () => {
    const refused = await p.call('POST', '/api/v1/withdrawal-qr', { token: alice.token, body: { currency: 'XAF', amount: null } });
    fieldError(refused, 'amount', 'INVALID_AMOUNT');
    const anyAmount = await p.call('POST', '/api/v1/withdrawal-qr', { token: alice.token, body: { currency: 'XAF' } });
    expect([anyAmount.status, anyAmount.body.amount]).toEqual([201, null]);
  });

  it('the profile: a null body or firstName null → 400, the profile unchanged; email null (nullable) removes the email', async () => {
    const set = await p.call('PATCH', '/api/orchestrator/me/profile', {
      token: alice.token,
      body: { firstName: 'Awa', email: 'awa@example.cm' },
    });
    expect(set.status).toBe(200);

    fieldError(await p.call('PATCH', '/api/orchestrator/me/profile', { token: alice.token, body: null }), 'body', 'INVALID_OBJECT');
    fieldError(
      await p.call('PATCH', '/api/orchestrator/me/profile', { token: alice.token, body: { firstName: null } }),
      'firstName',
      'INVALID_STRING',
    );
    const me = await p.call('GET', '/api/orchestrator/me', { token: alice.token });
    expect(me.body.customer).toMatchObject({ firstName: 'Awa', email: 'awa@example.cm' });

    const cleared = await p.call('PATCH', '/api/orchestrator/me/profile', { token: alice.token, body: { email: null } });
    expect([cleared.status, cleared.body.firstName, cleared.body.email]).toEqual([200, 'Awa', null]);
  });

  it('check-pin with intentId null → 400 on intentId, not a plain "valid" without the consent proof', async () => {
    const res = await p.call('POST', '/api/auth/check-pin', { token: alice.token, body: { pin: alice.pin, intentId: null } });
    fieldError(res, 'intentId', 'INVALID_UUID');
    const plain = await p.call('POST', '/api/auth/check-pin', { token: alice.token, body: { pin: alice.pin } });
    expect([plain.status, plain.body]).toEqual([200, { valid: true }]);
  });

  // A fractional value is reported by the type check ("must be an integer"), which comes before the
  // bounds (docs/architecture.md "Processes and ports"), not by a bound it does not even exceed
  // (?limit=2.5 said "must not be greater than 100").
  it.each([
    ['GET', '/api/v1/transactions?limit=2.5', 'limit', 'INVALID_LIMIT', 'CUSTOMER'],
    ['GET', '/api/config/pricing/versions?before=2.5', 'before', 'INVALID_INT', 'ADMIN'],
    ['GET', '/api/config/pricing/versions?limit=2.5', 'limit', 'INVALID_INT', 'ADMIN'],
    ['GET', '/api/risk/blocklist?offset=2.5', 'offset', 'INVALID_INT', 'ADMIN'],
    ['GET', '/api/orchestrator/admin/customers?limit=2.5', 'limit', 'INVALID_INT', 'ADMIN'],
    ['POST', '/api/v1/withdrawal-qr', 'amount', 'INVALID_AMOUNT', 'CUSTOMER'],
  ])('%s %s → 400, %s: "must be an integer"', async (method, path, field, code, who) => {
    const token = who === 'ADMIN' ? await p.adminToken() : alice.token;
    const res = await p.call(method, path, { token, body: method === 'POST' ? { currency: 'XAF', amount: 2.5 } : undefined });
    fieldError(res, field, code);
    expect(res.body.errors[0].message).toBe(`${field} must be an integer number`);
  });
});
