import { randomUUID } from 'node:crypto';
import { type MoneyPlatform as Platform, MoneyPlatform, type TestUser } from '../../../test/e2e/money-platform';
import type { CreatedIntentView } from '../src/intents/dto/intent-views.dto';
import { PaymentIntentStore } from '../src/intents/payment-intent.store';

/**
 * Every bad input of the public intent routes answers 4xx with a stable code, before anything is
 * held: field faults are 400 VALIDATION_ERROR with the field's specific code in errors[].
 */
describe('public intents: bad input', () => {
  const p: Platform = new MoneyPlatform();
  let alice: TestUser;
  let bob: TestUser;
  let agent: TestUser;

  beforeAll(async () => {
    await p.start();
    [alice, bob, agent] = await Promise.all([p.register('CUSTOMER'), p.register('CUSTOMER'), p.register('AGENT')]);
    await p.fund(alice.accounts.XAF, 50_000);
  });
  afterAll(() => p.stop());

  const create = (user: TestUser, body: Record<string, unknown>) => p.call('POST', '/api/v1/intents', { token: user.token, body });
  const valid = () => ({ type: 'TRANSFER', amount: 1_000, clientPhone: bob.phone, idempotencyKey: randomUUID() });

  it.each([
    ['amount 0', { amount: 0 }, 'amount', 'INVALID_AMOUNT'],
    ['negative amount', { amount: -5 }, 'amount', 'INVALID_AMOUNT'],
    ['fractional amount', { amount: 10.5 }, 'amount', 'INVALID_AMOUNT'],
    ['amount above 2^53 − 1', { amount: Number.MAX_SAFE_INTEGER + 1 }, 'amount', 'INVALID_AMOUNT'],
    ['amount as a string', { amount: '1000' }, 'amount', 'INVALID_AMOUNT'],
    ['unknown type', { type: 'REFUND' }, 'type', 'INVALID_INTENT_TYPE'],
    ['phone not E.164', { clientPhone: '690000001' }, 'clientPhone', 'INVALID_PHONE_FORMAT'],
    ['unsupported currency', { currency: 'EUR' }, 'currency', 'UNSUPPORTED_CURRENCY'],
    ['idempotency key not a UUID v4', { idempotencyKey: 'abc' }, 'idempotencyKey', 'INVALID_IDEMPOTENCY_KEY'],
    ['country code the platform does not serve', { clientCountryCode: '+33' }, 'clientCountryCode', 'INVALID_COUNTRY_CODE'],
    ['country code not starting the phone', { clientCountryCode: '+241' }, 'clientCountryCode', 'COUNTRY_CODE_MISMATCH'],
    ['description too long', { description: 'x'.repeat(141) }, 'description', 'INVALID_DESCRIPTION'],
    ['unknown field', { pinCode: '1234' }, 'pinCode', 'UNKNOWN_FIELD'],
  ])('%s → 400 VALIDATION_ERROR, field code on the field', async (_name, patch, field, code) => {
    const res = await create(alice, { ...valid(), ...patch });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field, code })]));
  });

  it.each([
    ['missing idempotencyKey', { idempotencyKey: undefined }, 400, 'IDEMPOTENCY_KEY_MISSING'],
    ['self-transfer', { clientPhone: '__self__' }, 400, 'SELF_TRANSFER'],
    ['unknown recipient', { clientPhone: '+237699999999' }, 400, 'RECIPIENT_NOT_FOUND'],
    ['no recipient at all', { clientPhone: undefined }, 400, 'RECIPIENT_REQUIRED'],
    ['a withdrawal code on a transfer', { clientPhone: undefined, qrToken: `wqr_${'a'.repeat(64)}` }, 400, 'QR_NOT_ALLOWED'],
    ['a transfer to an agent', { clientPhone: '__agent__' }, 422, 'RECIPIENT_NOT_ELIGIBLE'],
  ])('%s → its status and stable code', async (_name, patch, status, code) => {
    const body: Record<string, unknown> = { ...valid(), ...patch };
    if (body.clientPhone === '__self__') body.clientPhone = alice.phone;
    if (body.clientPhone === '__agent__') body.clientPhone = agent.phone;
    const res = await create(alice, body);
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect(await p.balance(alice.accounts.XAF)).toEqual({ balance: 50_000, availableBalance: 50_000, frozenBalance: 0 });
  });

  it('who starts what: a customer cannot cash in, an agent cannot transfer (403 INTENT_TYPE_NOT_ALLOWED)', async () => {
    const cashIn = await create(alice, { ...valid(), type: 'CASH_IN' });
    expect([cashIn.status, cashIn.body.code]).toEqual([403, 'INTENT_TYPE_NOT_ALLOWED']);
    const transfer = await create(agent, { ...valid(), clientPhone: alice.phone });
    expect([transfer.status, transfer.body.code]).toEqual([403, 'INTENT_TYPE_NOT_ALLOWED']);
    // messages name roles and operations in words a person reads, each with its article ("A customer", "a cash-in")
    expect([cashIn.body.message, transfer.body.message]).toEqual(['A customer cannot start a cash-in', 'An agent cannot start a transfer']);
  });

  it('a transfer to an agent or a master agent names the account it refuses (422 RECIPIENT_NOT_ELIGIBLE)', async () => {
    const master = await p.register('MASTER_AGENT');
    const messages: unknown[] = [];
    for (const payee of [agent, master]) {
      const res = await create(alice, { ...valid(), clientPhone: payee.phone });
      expect([res.status, res.body.code]).toEqual([422, 'RECIPIENT_NOT_ELIGIBLE']);
      messages.push(res.body.message);
    }
    expect(messages).toEqual([
      'A transfer cannot involve an agent account as the customer',
      'A transfer cannot involve a master agent account as the customer',
    ]);
  });

  it('without an access token: 401; malformed intent id: 400; unknown intent: 404', async () => {
    const anonymous = await p.call('POST', '/api/v1/intents', { body: valid() });
    expect([anonymous.status, anonymous.body.code]).toEqual([401, 'UNAUTHORIZED']);
    const malformed = await p.call('POST', '/api/v1/intents/not-a-uuid/confirm', { token: alice.token });
    expect([malformed.status, malformed.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    const unknown = await p.call('GET', `/api/v1/intents/${randomUUID()}`, { token: alice.token });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'INTENT_NOT_FOUND']);
  });

  it('the same key with the same body answers the first 201 again; with another body 422', async () => {
    const body = valid();
    const first = await create(alice, body);
    expect(first.status).toBe(201);
    const again = await create(alice, body);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await create(alice, { ...body, amount: 1_001 });
    expect([other.status, other.body.code]).toEqual([422, 'IDEMPOTENCY_KEY_CONFLICT']);
    const stranger = await create(bob, { ...body, clientPhone: alice.phone });
    expect([stranger.status, stranger.body.code]).toEqual([422, 'IDEMPOTENCY_KEY_CONFLICT']);
    // One intent, one hold.
    expect(await p.balance(alice.accounts.XAF)).toMatchObject({ frozenBalance: 1_050 });
    await p.call('POST', `/api/v1/intents/${first.body.intentId}/cancel`, { token: alice.token });
  });

  it('another user never sees or moves an intent that is not theirs (404)', async () => {
    const created = await create(alice, valid());
    const id = created.body.intentId;
    for (const [method, path, body] of [
      ['GET', `/api/v1/intents/${id}`, undefined],
      ['POST', `/api/v1/intents/${id}/verify-pin`, { pin: bob.pin }],
      ['POST', `/api/v1/intents/${id}/confirm`, undefined],
      ['POST', `/api/v1/intents/${id}/cancel`, undefined],
    ] as const) {
      const res = await p.call(method, path, { token: bob.token, body });
      expect([res.status, res.body.code]).toEqual([404, 'INTENT_NOT_FOUND']);
    }
    const mine = await p.call('GET', `/api/v1/intents/${id}`, { token: alice.token });
    expect(mine.body).toMatchObject({ intentId: id, status: 'CREATED', amount: 1_000, fee: 50 });
    const canceled = await p.call('POST', `/api/v1/intents/${id}/cancel`, { token: alice.token });
    expect(canceled.body).toEqual({ intentId: id, status: 'CANCELED' });
    expect(await p.balance(alice.accounts.XAF)).toEqual({ balance: 50_000, availableBalance: 50_000, frozenBalance: 0 });
  });

  it("a withdrawal-code cash-out stores the ledger request the service built: createBy is the code's expiry, to the millisecond", async () => {
    const carol = await p.register('CUSTOMER');
    const qr = await p.call('POST', '/api/v1/withdrawal-qr', { token: carol.token, body: { amount: 2_000 } });
    expect(qr.status).toBe(201);
    // A code whose expiry has microseconds: the stored deadline is that instant rounded down to the millisecond.
    await p.sql.query(
      `UPDATE orchestrator.withdrawal_qrs SET expires_at = date_trunc('second', expires_at) + interval '0.123789 second' WHERE customer_user_id = $1`,
      [carol.userId],
    );
    const key = randomUUID();
    // carol holds nothing: the ledger refuses, the record stays PENDING with its request.
    const res = await create(agent, { type: 'CASH_OUT', amount: 2_000, qrToken: qr.body.qrToken, idempotencyKey: key });
    expect([res.status, res.body.code]).toEqual([422, 'INSUFFICIENT_BALANCE']);
    const { rows } = await p.sql.query(
      `SELECT p.ledger_request->>'createBy' AS create_by,
              to_char(date_trunc('second', q.expires_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') AS second
         FROM orchestrator.payment_intents p JOIN orchestrator.withdrawal_qrs q ON q.id = p.withdrawal_qr_id
        WHERE p.idempotency_key = $1`,
      [key],
    );
    expect(rows[0].create_by).toBe(`${rows[0].second}.123Z`);
  });

  it('a PENDING withdrawal-code record: FRESH while its code lives, ANSWERED with the stored answer, CLOSED once the code expired', async () => {
    const store = p.gateway.app.get(PaymentIntentStore);
    const refusedQrCashOut = async () => {
      const dave = await p.register('CUSTOMER');
      const qr = await p.call('POST', '/api/v1/withdrawal-qr', { token: dave.token, body: { amount: 2_000 } });
      const key = randomUUID();
      const res = await create(agent, { type: 'CASH_OUT', amount: 2_000, qrToken: qr.body.qrToken, idempotencyKey: key });
      expect(res.body.code).toBe('INSUFFICIENT_BALANCE');
      return { record: (await store.findByKey(key))!, dave };
    };

    const { record: answered } = await refusedQrCashOut();
    expect(await store.qrStillFresh(answered.id)).toEqual({ state: 'FRESH' });
    // A twin recorded the ledger's answer meanwhile: it comes back from the same statement.
    const view = { intentId: randomUUID(), status: 'CREATED' } as unknown as CreatedIntentView;
    await store.markCreated(answered.id, view.intentId, new Date(Date.now() + 60_000).toISOString(), view);
    expect(await store.qrStillFresh(answered.id)).toEqual({ state: 'ANSWERED', response: view });

    const { record: expired, dave } = await refusedQrCashOut();
    await p.sql.query(
      `UPDATE orchestrator.withdrawal_qrs SET created_at = created_at - interval '1 day', expires_at = expires_at - interval '1 day'
        WHERE customer_user_id = $1`,
      [dave.userId],
    );
    expect(await store.qrStillFresh(expired.id)).toEqual({ state: 'CLOSED' });
    expect(await store.reload(expired.id)).toMatchObject({
      stage: 'CLOSED',
      failureReason: 'withdrawal code expired before the ledger accepted the operation',
    });
    // Closing again changes nothing: the record is no longer PENDING.
    await store.closeUncreated(expired.id, 'another reason');
    expect(await store.reload(expired.id)).toMatchObject({
      stage: 'CLOSED',
      failureReason: 'withdrawal code expired before the ledger accepted the operation',
    });
  });
});
