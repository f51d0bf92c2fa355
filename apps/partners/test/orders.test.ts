import { openApiOf, undocumented } from '../../../test/support/openapi-departures';
import { type PartnersHarness, connectedMerchant, startPartners } from './support/partners-harness';

const ORDERS = '/partners-public/orders';

describe('partners: orders (docs/partners.md "4. Orders": rules, idempotency, read, QR resolution)', () => {
  let h: PartnersHarness;
  let key: string;
  let testKey: string;
  let merchantId: string;
  let accounts: Record<string, string>;

  beforeAll(async () => {
    h = await startPartners({ PARTNERS_DIRECTORY_CACHE_MS: '0' });
    const created = await h.integration();
    key = created.apiKeys.live.key;
    testKey = created.apiKeys.test.key;
    ({ merchantId, accounts } = await connectedMerchant(h, key));
  });
  afterAll(() => h.close());

  const create = (body: unknown, headers: Record<string, string> = {}, k = key) => h.call('POST', ORDERS, { key: k, body, headers });

  it('creates a pending order: 201, the documented fields, orderId = QR id, opaque QR token, expiresAt = creation + ttl (default 300 s, XAF)', async () => {
    const res = await create({ merchantId, amount: 2500 });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const { integration } = (await h.admin.query(`SELECT integration_id AS integration FROM partners.api_keys LIMIT 1`)).rows[0];
    expect(res.body).toEqual({
      orderId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      qrToken: expect.stringMatching(/^pqr_[0-9A-Za-z]{43}$/),
      status: 'pending',
      amount: 2500,
      currencyCode: 'XAF',
      expiresAt: expect.any(String),
      merchantId,
      integrationId: integration,
      createdAt: expect.any(String),
      paidAt: null,
      livemode: true,
    });
    expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(300_000);
    expect(res.text.indexOf('"orderId"')).toBeLessThan(res.text.indexOf('"qrToken"'));

    const full = await create({
      merchantId,
      amount: 1,
      currencyCode: 'XOF',
      ttlSeconds: 900,
      description: 'd'.repeat(280),
      externalReference: 'r'.repeat(128),
    });
    expect(full.status).toBe(201);
    expect(full.body).toMatchObject({ currencyCode: 'XOF', description: 'd'.repeat(280), externalReference: 'r'.repeat(128) });
    expect(Date.parse(full.body.expiresAt) - Date.parse(full.body.createdAt)).toBe(900_000);
    expect((await create({ merchantId, amount: 1, ttlSeconds: 60 })).status).toBe(201);

    const resolved = await h.internal('GET', `/internal/partners/qr/${res.body.qrToken}`);
    expect(resolved.body).toEqual({
      orderId: res.body.orderId,
      qrToken: res.body.qrToken,
      status: 'pending',
      payable: true,
      merchantId,
      destinationAccountId: accounts.XAF,
      amount: 2500,
      currencyCode: 'XAF',
      expiresAt: res.body.expiresAt,
      // expiresAt + half the expiry grace, which this harness sets to 0 (test/e2e/partners-journey has 2 s).
      payBy: res.body.expiresAt,
      integrationId: integration,
      integrationName: 'Caisse Rapide',
      description: null,
    });
    expect((await h.internal('GET', `/internal/partners/qr/${full.body.qrToken}`)).body.destinationAccountId).toBe(accounts.XOF);
  });

  it.each([
    [{ amount: 0 }, 'amount', 'INVALID_AMOUNT'],
    [{ amount: -5 }, 'amount', 'INVALID_AMOUNT'],
    [{ amount: 12.5 }, 'amount', 'INVALID_AMOUNT'],
    [{ amount: '2500' }, 'amount', 'INVALID_AMOUNT'],
    [{ amount: null }, 'amount', 'INVALID_AMOUNT'],
    [{ amount: undefined }, 'amount', 'INVALID_AMOUNT'],
    [{ ttlSeconds: 59 }, 'ttlSeconds', 'INVALID_TTL'],
    [{ ttlSeconds: 0 }, 'ttlSeconds', 'INVALID_TTL'],
    [{ ttlSeconds: 60.5 }, 'ttlSeconds', 'INVALID_TTL'],
    [{ ttlSeconds: '300' }, 'ttlSeconds', 'INVALID_TTL'],
    [{ ttlSeconds: 901 }, 'ttlSeconds', 'TTL_TOO_LONG'],
    [{ ttlSeconds: 86400 }, 'ttlSeconds', 'TTL_TOO_LONG'],
    [{ currencyCode: 'EUR' }, 'currencyCode', 'UNSUPPORTED_CURRENCY'],
    [{ currencyCode: 'xaf' }, 'currencyCode', 'UNSUPPORTED_CURRENCY'],
    [{ description: 'd'.repeat(281) }, 'description', 'INVALID_DESCRIPTION'],
    [{ description: 42 }, 'description', 'INVALID_DESCRIPTION'],
    [{ externalReference: 'r'.repeat(129) }, 'externalReference', 'INVALID_EXTERNAL_REFERENCE'],
    [{ merchantId: 'not-a-uuid' }, 'merchantId', 'INVALID_UUID'],
    [{ merchantId: undefined }, 'merchantId', 'INVALID_UUID'],
    [{ tip: 100 }, 'tip', 'UNKNOWN_FIELD'],
  ])('%j → 400 VALIDATION_ERROR with %s: %s in errors[]', async (patch, field, code) => {
    const res = await create({ merchantId, amount: 100, ...patch });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 'VALIDATION_ERROR',
      message: expect.any(String),
      errors: [{ field, code, message: expect.any(String) }],
      requestId: expect.any(String),
    });
  });

  it('several faulty fields: one errors[] entry each, each with its specific code', async () => {
    const res = await create({ merchantId: 'x', amount: 0, ttlSeconds: 1000, currencyCode: 'USD' });
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors.map((e: { field: string; code: string }) => `${e.field}:${e.code}`).sort()).toEqual([
      'amount:INVALID_AMOUNT',
      'currencyCode:UNSUPPORTED_CURRENCY',
      'merchantId:INVALID_UUID',
      'ttlSeconds:TTL_TOO_LONG',
    ]);
  });

  it('malformed bodies are 4xx with stable codes, never a 500', async () => {
    const raw = (payload: string, type = 'application/json') =>
      h.call('POST', ORDERS, { key, raw: payload, headers: { 'content-type': type } });
    expect((await raw('{"merchantId":')).body.code).toBe('MALFORMED_JSON');
    expect((await raw(`{"merchantId":"${merchantId}","amount":1e400}`)).body.errors[0].code).toBe('INVALID_AMOUNT');
    expect((await raw(`{"merchantId":"${merchantId}","amount":9007199254740993}`)).body.errors[0].code).toBe('INVALID_AMOUNT');
    expect((await raw('[1,2]')).status).toBe(400);
    // PostgreSQL cannot store U+0000: refused as the client's 400 before anything is written, not a 500 at the INSERT.
    const nul = await raw(`{"merchantId":"${merchantId}","amount":2500,"currencyCode":"XAF","description":"caf\\u0000e"}`);
    expect(nul.status).toBe(400);
    expect(nul.body.errors).toEqual([{ field: 'description', code: 'INVALID_CHARACTER', message: expect.any(String) }]);
    expect((await raw('null')).status).toBe(400);
    const wrongType = await raw(`merchantId=${merchantId}&amount=1`, 'application/x-www-form-urlencoded');
    expect([wrongType.status, wrongType.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const text = await raw(JSON.stringify({ merchantId, amount: 1 }), 'text/plain');
    expect([text.status, text.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const big = await raw(JSON.stringify({ merchantId, amount: 1, description: 'x'.repeat(1_100_000) }));
    expect([big.status, big.body.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });

  it('403 NO_ACTIVE_CONNECTION without an active connection (none, pending, revoked); 403 MISSING_SCOPE without orders.write', async () => {
    expect((await create({ merchantId: '00000000-0000-4000-8000-000000000000', amount: 1 })).body.code).toBe('NO_ACTIVE_CONNECTION');
    const pendingPhone = '+237677000001';
    const pending = h.directory.add(pendingPhone);
    await h.call('POST', '/partners-public/connections/request', { key, body: { merchantPhone: pendingPhone, scopes: ['orders.write'] } });
    const res = await create({ merchantId: pending.merchantId, amount: 1 });
    expect([res.status, res.body.code]).toEqual([403, 'NO_ACTIVE_CONNECTION']);

    const revoked = await connectedMerchant(h, key);
    await h.call('POST', `/partners-public/connections/${revoked.connectionId}/revoke`, { key });
    expect((await create({ merchantId: revoked.merchantId, amount: 1 })).body.code).toBe('NO_ACTIVE_CONNECTION');

    const readOnly = await connectedMerchant(h, key, { scopes: ['orders.read'] });
    const missing = await create({ merchantId: readOnly.merchantId, amount: 1 });
    expect([missing.status, missing.body.code]).toEqual([403, 'MISSING_SCOPE']);
  });

  it('422 when the merchant cannot receive: frozen, or no account in the currency', async () => {
    const m = await connectedMerchant(h, key);
    const entry = h.directory.merchants.get(m.merchantId)!;
    entry.accounts = { XAF: entry.accounts.XAF };
    expect((await create({ merchantId: m.merchantId, amount: 1, currencyCode: 'XOF' })).body.code).toBe('MERCHANT_CURRENCY_UNAVAILABLE');
    entry.status = 'frozen';
    const res = await create({ merchantId: m.merchantId, amount: 1 });
    expect([res.status, res.body.code]).toEqual([422, 'MERCHANT_UNAVAILABLE']);
  });

  describe('Idempotency-Key', () => {
    it('same key and body → the same order, byte for byte; concurrent requests create one order', async () => {
      const body = { merchantId, amount: 700, externalReference: 'idem-1' };
      const first = await create(body, { 'idempotency-key': 'key-001' });
      expect(first.status).toBe(201);
      const replay = await create({ externalReference: 'idem-1', amount: 700, merchantId }, { 'idempotency-key': 'key-001' });
      expect(replay.status).toBe(201);
      expect(replay.text).toBe(first.text);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(first.headers.get('idempotent-replayed')).toBeNull();

      const concurrent = await Promise.all(
        Array.from({ length: 10 }, () => create({ merchantId, amount: 800 }, { 'idempotency-key': 'key-002' })),
      );
      expect(new Set(concurrent.map((r) => r.status))).toEqual(new Set([201]));
      expect(new Set(concurrent.map((r) => r.text)).size).toBe(1);
      const { rows } = await h.admin.query(`SELECT count(*)::int AS n FROM partners.orders WHERE amount = 800`);
      expect(rows[0].n).toBe(1);
    });

    it('same key with another body → 422 IDEMPOTENCY_KEY_CONFLICT; keys are per integration and mode', async () => {
      await create({ merchantId, amount: 900 }, { 'idempotency-key': 'key-003' });
      const other = await create({ merchantId, amount: 901 }, { 'idempotency-key': 'key-003' });
      expect([other.status, other.body.code]).toEqual([422, 'IDEMPOTENCY_KEY_CONFLICT']);
      const second = await h.integration('Second POS');
      const m2 = await connectedMerchant(h, second.apiKeys.live.key);
      const res = await create({ merchantId: m2.merchantId, amount: 901 }, { 'idempotency-key': 'key-003' }, second.apiKeys.live.key);
      expect(res.status).toBe(201);
    });

    it('a refused request is not remembered; a key older than 24 h is forgotten; a malformed key is 400', async () => {
      const m = h.directory.add('+237677000099');
      const req = await h.call('POST', '/partners-public/connections/request', {
        key,
        body: { merchantPhone: '+237677000099', scopes: ['orders.write'] },
      });
      expect((await create({ merchantId: m.merchantId, amount: 5 }, { 'idempotency-key': 'key-004' })).body.code).toBe(
        'NO_ACTIVE_CONNECTION',
      );
      await h.internal('POST', `/internal/partners/merchants/${m.merchantId}/connections/${req.body.connectionId}/accept`);
      const ok = await create({ merchantId: m.merchantId, amount: 5 }, { 'idempotency-key': 'key-004' });
      expect(ok.status).toBe(201);

      await h.admin.query(`UPDATE partners.idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'key-004'`);
      const later = await create({ merchantId: m.merchantId, amount: 5 }, { 'idempotency-key': 'key-004' });
      expect(later.status).toBe(201);
      expect(later.body.orderId).not.toBe(ok.body.orderId);

      for (const bad of ['has space', 'x'.repeat(256), 'é']) {
        const res = await create({ merchantId, amount: 5 }, { 'idempotency-key': bad });
        expect(res.body).toMatchObject({
          code: 'VALIDATION_ERROR',
          errors: [{ field: 'Idempotency-Key', code: 'INVALID_IDEMPOTENCY_KEY', message: expect.any(String) }],
        });
      }
    });
  });

  it('GET an order with orders.read; 403 without the scope or the connection; 404 for unknown, foreign and malformed ids', async () => {
    const created = (await create({ merchantId, amount: 321, description: 'two coffees' })).body;
    const got = await h.call('GET', `${ORDERS}/${created.orderId}`, { key });
    expect(got.body).toEqual(created);

    const writeOnly = await connectedMerchant(h, key, { scopes: ['orders.write'] });
    const o2 = (await create({ merchantId: writeOnly.merchantId, amount: 1 })).body;
    expect((await h.call('GET', `${ORDERS}/${o2.orderId}`, { key })).body.code).toBe('MISSING_SCOPE');
    await h.call('POST', `/partners-public/connections/${writeOnly.connectionId}/revoke`, { key });
    expect((await h.call('GET', `${ORDERS}/${o2.orderId}`, { key })).body.code).toBe('NO_ACTIVE_CONNECTION');

    const other = await h.integration('Nosy POS');
    for (const [id, k] of [
      [created.orderId, other.apiKeys.live.key],
      [created.orderId, testKey],
      ['00000000-0000-4000-8000-000000000000', key],
      ['nope', key],
    ]) {
      const res = await h.call('GET', `${ORDERS}/${id}`, { key: k });
      expect([res.status, res.body.code]).toEqual([404, 'ORDER_NOT_FOUND']);
    }
  });

  it('test mode: orders on a test connection need no merchant account and never resolve as a QR to pay', async () => {
    const m = await connectedMerchant(h, testKey, { mode: 'test' });
    const calls = h.directory.calls.length;
    const res = await create({ merchantId: m.merchantId, amount: 100 }, {}, testKey);
    expect(res.body).toMatchObject({ status: 'pending', livemode: false });
    expect(h.directory.calls.length).toBe(calls);
    expect((await h.internal('GET', `/internal/partners/qr/${res.body.qrToken}`)).body.code).toBe('QR_NOT_FOUND');
    expect((await h.internal('GET', `/internal/partners/qr/pqr_nope`)).body.code).toBe('QR_NOT_FOUND');
    // A live key cannot create an order on the test connection.
    expect((await create({ merchantId: m.merchantId, amount: 100 })).body.code).toBe('NO_ACTIVE_CONNECTION');
  });

  it('an order past expiresAt no longer resolves as payable', async () => {
    const created = (await create({ merchantId, amount: 42 })).body;
    await h.admin.query(`UPDATE partners.orders SET expires_at = created_at + interval '1 millisecond' WHERE id = $1`, [created.orderId]);
    expect((await h.internal('GET', `/internal/partners/qr/${created.qrToken}`)).body).toMatchObject({ status: 'pending', payable: false });
  });

  it('QR tokens are distinct and carry no structure', async () => {
    const tokens = await Promise.all(
      Array.from({ length: 40 }, () => create({ merchantId, amount: 1 }).then((r) => r.body.qrToken as string)),
    );
    expect(new Set(tokens).size).toBe(40);
    const chars = new Set(tokens.join('').slice(0));
    expect(chars.size).toBeGreaterThan(55);
  });

  it('the QR resolution answers what its OpenAPI document says: payable or not, with or without a description', async () => {
    const doc = await openApiOf(h.partners.app);
    const QR = '/internal/partners/qr/{qrToken}';
    const plain = (await create({ merchantId, amount: 700 })).body;
    const described = (await create({ merchantId, amount: 800, currencyCode: 'XOF', description: 'Table 2: 1 thé' })).body;
    const late = (await create({ merchantId, amount: 900 })).body;
    await h.admin.query(`UPDATE partners.orders SET expires_at = created_at + interval '1 millisecond' WHERE id = $1`, [late.orderId]);
    const answers = [];
    for (const order of [plain, described, late]) answers.push(await h.internal('GET', `/internal/partners/qr/${order.qrToken}`));
    expect(answers.map((res) => [res.status, res.body.payable, res.body.description])).toEqual([
      [200, true, null],
      [200, true, 'Table 2: 1 thé'],
      [200, false, null],
    ]);
    expect(answers.flatMap((res) => undocumented(doc, 'GET', QR, res))).toEqual([]);
  });
});
