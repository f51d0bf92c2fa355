import { ExpirySweeper } from '../src/sweeper/expiry-sweeper.service';
import { type Body, type PartnersHarness, connectedMerchant, startPartners } from './support/partners-harness';

describe('partners: GET /partners-public/events and the OpenAPI document', () => {
  let h: PartnersHarness;
  let testKey: string;
  let liveKey: string;
  let merchantId: string;
  const orders: string[] = [];

  beforeAll(async () => {
    h = await startPartners();
    const created = await h.integration();
    testKey = created.apiKeys.test.key;
    liveKey = created.apiKeys.live.key;
    ({ merchantId } = await connectedMerchant(h, testKey, { mode: 'test' }));
    for (let i = 0; i < 3; i++) {
      const o = (await h.call('POST', '/partners-public/orders', { key: testKey, body: { merchantId, amount: 100 + i } })).body;
      orders.push(o.orderId);
      await h.call('POST', `/partners-public/test-helpers/orders/${o.orderId}/pay`, { key: testKey });
    }
    const late = (
      await h.call('POST', '/partners-public/orders', { key: testKey, body: { merchantId, amount: 999, description: 'never paid' } })
    ).body;
    orders.push(late.orderId);
    await h.admin.query(`UPDATE partners.orders SET expires_at = created_at + interval '1 millisecond' WHERE id = $1`, [late.orderId]);
    await h.partners.app.get(ExpirySweeper).sweep();
  });
  afterAll(() => h.close());

  const list = (query = '', key = testKey) => h.call('GET', `/partners-public/events${query}`, { key });

  it('lists the envelopes of the key mode, newest first, with a type filter', async () => {
    const all = await list('?limit=100');
    expect(all.body.data.map((e: Body) => e.event)).toEqual([
      'order.expired',
      'order.paid',
      'order.paid',
      'order.paid',
      'connection.activated',
    ]);
    expect(all.body.data[0]).toEqual({
      event: 'order.expired',
      id: expect.any(String),
      createdAt: expect.any(String),
      data: {
        orderId: orders[3],
        amount: 999,
        currencyCode: 'XAF',
        expiresAt: expect.any(String),
        expiredAt: expect.any(String),
        description: 'never paid',
      },
    });
    const paid = await list('?type=order.paid');
    expect(paid.body.data.map((e: Body) => e.data.orderId)).toEqual([orders[2], orders[1], orders[0]]);
    expect((await list('', liveKey)).body).toEqual({ data: [], nextCursor: null });
  });

  it('pages with a cursor until nextCursor is null', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      ids.push(...res.body.data.map((e: Body) => e.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    const all = (await list('?limit=100')).body.data.map((e: Body) => e.id);
    expect(ids).toEqual(all);
  });

  it('reaches back 30 days, no further; bad filters are 400 with field codes', async () => {
    await h.admin.query(`UPDATE partners.events SET created_at = now() - interval '31 days' WHERE type = 'connection.activated'`);
    expect((await list('?limit=100')).body.data.map((e: Body) => e.event)).not.toContain('connection.activated');
    const bad = await list('?type=order.refunded&limit=0&cursor=@@');
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: Body) => e.code).sort()).toEqual(['INVALID_EVENT_TYPE', 'INVALID_LIMIT']);
  });

  it('the OpenAPI document describes every public route: bearer auth, error answers, examples on every request field', async () => {
    const doc = (await h.partners.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Body;
    const publicRoutes: Array<[string, string]> = [
      ['/partners-public/connections/request', 'post'],
      ['/partners-public/connections', 'get'],
      ['/partners-public/connections/{id}', 'get'],
      ['/partners-public/connections/{id}/revoke', 'post'],
      ['/partners-public/orders', 'post'],
      ['/partners-public/orders/{orderId}', 'get'],
      ['/partners-public/events', 'get'],
      ['/partners-public/test-helpers/connections/{id}/activate', 'post'],
      ['/partners-public/test-helpers/orders/{orderId}/pay', 'post'],
    ];
    for (const [path, method] of publicRoutes) {
      const op = doc.paths[path]?.[method];
      expect({ path, present: Boolean(op) }).toEqual({ path, present: true });
      expect(op.security).toEqual(expect.arrayContaining([{ bearer: [] }]));
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '429']));
      expect(op.responses['401'].description).toContain('INVALID_INTEGRATION_CREDENTIALS');
    }
    const createOrder = doc.paths['/partners-public/orders'].post;
    expect(createOrder.description).toContain('VALIDATION_ERROR');
    expect(createOrder.description).toContain('INVALID_AMOUNT');
    expect(createOrder.responses['400'].description).toEqual(expect.stringContaining('TTL_TOO_LONG'));
    expect(createOrder.responses['403'].description).toEqual(expect.stringContaining('MISSING_SCOPE'));
    // The two views of a connection share their common fields through one base class: each
    // document still lists every field of its view.
    const common = ['activatedAt', 'createdAt', 'id', 'integrationId', 'merchantId', 'pendingExpiresAt', 'requestedReason'];
    const lifecycle = ['revokedAt', 'revokedBy', 'scopes', 'status', 'updatedAt'];
    expect(Object.keys(doc.components.schemas.ConnectionDto.properties).sort()).toEqual([...common, 'livemode', ...lifecycle].sort());
    expect(Object.keys(doc.components.schemas.MerchantConnectionViewDto.properties).sort()).toEqual(
      [...common, 'integrationName', 'scopeDescriptions', ...lifecycle].sort(),
    );
    for (const schema of ['CreateOrderDto', 'RequestConnectionDto', 'OrderDto', 'ConnectionDto', 'ConnectionRequestResultDto']) {
      const properties = doc.components.schemas[schema].properties as Record<string, { example?: unknown }>;
      for (const [name, property] of Object.entries(properties)) {
        expect({ schema, name, example: property.example !== undefined }).toEqual({ schema, name, example: true });
      }
    }
  });
});
