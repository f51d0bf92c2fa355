import { randomUUID } from 'node:crypto';
import { type Job, Queue } from 'bullmq';
import { LEDGER_EVENT_BATCH_JOB, LEDGER_EVENT_TYPES, QUEUES } from '@mm/contracts';
import { isUuidV4 } from '@mm/platform';
import { OrderPaymentService } from '../src/payments/order-payment.service';
import { ExpirySweeper } from '../src/sweeper/expiry-sweeper.service';
import { type Body, type PartnersHarness, startPartners } from './support/partners-harness';

describe('partners: order.paid from the ledger commit to a verified webhook', () => {
  let h: PartnersHarness;
  let key: string;
  let testKey: string;
  let merchantId: string;
  let merchantAccounts: Record<string, string>;
  let payer: Record<string, string>;

  beforeAll(async () => {
    h = await startPartners({}, { ledger: true });
    const created = await h.integration();
    key = created.apiKeys.live.key;
    testKey = created.apiKeys.test.key;
    merchantAccounts = await h.payments!.wallet('MERCHANT');
    payer = await h.payments!.wallet('USER');
    await h.payments!.fund(payer.XAF, 1_000_000);
    const merchant = h.directory.add('+237699000001', { accounts: merchantAccounts });
    merchantId = merchant.merchantId;
    const req = await h.call('POST', '/partners-public/connections/request', {
      key,
      body: { merchantPhone: '+237699000001', scopes: ['orders.write', 'orders.read'] },
    });
    await h.internal('POST', `/internal/partners/merchants/${merchantId}/connections/${req.body.connectionId}/accept`);
  });
  afterAll(() => h.close());

  const order = async (body: Record<string, unknown> = {}): Promise<Body> => {
    const res = await h.call('POST', '/partners-public/orders', { key, body: { merchantId, amount: 2500, ...body } });
    if (res.status !== 201) throw new Error(`order: ${res.status} ${res.text}`);
    return res.body;
  };
  const pay = (o: Body, patch: Partial<{ amount: number; destination: string }> = {}) =>
    h.payments!.payQr({
      source: payer.XAF,
      destination: patch.destination ?? merchantAccounts.XAF,
      amount: patch.amount ?? o.amount,
      qrToken: o.qrToken,
    });
  const eventRows = async (orderId: string) =>
    (await h.admin.query(`SELECT id, type, data::text AS data FROM partners.events WHERE subject_id = $1 ORDER BY created_at`, [orderId]))
      .rows;
  const waitFor = async <T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  it('a QR payment in the ledger marks the order paid and delivers one verified order.paid with exactly the documented data', async () => {
    const o = await order({ externalReference: 'POS-1-0001', description: 'Table 4' });
    const paid = await pay(o);
    const hook = await h.receiver.waitFor((w) => w.body.event === 'order.paid' && w.body.data.orderId === o.orderId);
    const { rows } = await h.admin.query(`SELECT completed_at FROM ledger.transactions WHERE id = $1`, [paid.transactionId]);

    expect(hook.verified).toBe(true);
    expect(isUuidV4(hook.body.id)).toBe(true);
    expect(hook.headers['svc-event']).toBe('order.paid');
    expect(hook.headers['svc-event-id']).toBe(hook.body.id);
    expect(hook.headers['user-agent']).toMatch(/^Svc-Webhooks\//);
    expect(Object.keys(hook.body)).toEqual(['event', 'id', 'createdAt', 'data']);
    expect(hook.body.data).toEqual({
      orderId: o.orderId,
      transactionId: paid.referenceId,
      amount: 2500,
      currencyCode: 'XAF',
      paidAt: rows[0].completed_at.toISOString(),
      externalReference: 'POS-1-0001',
      description: 'Table 4',
    });
    expect(Object.keys(hook.body.data)).toEqual([
      'orderId',
      'transactionId',
      'amount',
      'currencyCode',
      'paidAt',
      'externalReference',
      'description',
    ]);

    const got = await h.call('GET', `/partners-public/orders/${o.orderId}`, { key });
    expect(got.body).toMatchObject({ status: 'paid', paidAt: hook.body.data.paidAt });
    expect((await h.internal('GET', `/internal/partners/qr/${o.qrToken}`)).body).toMatchObject({ status: 'paid', payable: false });
    const listed = await h.call('GET', '/partners-public/events?type=order.paid', { key });
    expect(listed.body.data[0]).toEqual(hook.body);
  });

  it('without externalReference and description the data carries neither', async () => {
    const o = await order();
    await pay(o);
    const hook = await h.receiver.waitFor((w) => w.body.event === 'order.paid' && w.body.data.orderId === o.orderId);
    expect(Object.keys(hook.body.data)).toEqual(['orderId', 'transactionId', 'amount', 'currencyCode', 'paidAt']);
  });

  it('the ledger event delivered twice (and applied concurrently) gives one paid order and one order.paid', async () => {
    const o = await order({ externalReference: 'dup' });
    const paid = await pay(o);
    await h.receiver.waitFor((w) => w.body.event === 'order.paid' && w.body.data.orderId === o.orderId);
    const outbox = await h.admin.query(`SELECT payload FROM ledger.outbox WHERE aggregate_id = $1`, [paid.transactionId]);
    const payload = outbox.rows[0].payload;

    // The same event published again under another job id (a relay re-publish after the job was removed) ...
    const queue = new Queue(QUEUES.ledgerEvents, { connection: { url: h.redis.url }, prefix: `${h.redis.prefix}:bull` });
    await queue.add(LEDGER_EVENT_TYPES.transactionCompleted, payload, { jobId: `${payload.eventId}-again` });
    // ... and again inside a batch cut differently (a relay crash between its add and its mark).
    const other = { ...payload, eventId: randomUUID(), qrToken: null };
    const batch = await queue.add(LEDGER_EVENT_BATCH_JOB, { events: [other, payload] }, { jobId: `batch-${payload.eventId}` });
    for (const end = Date.now() + 10_000; (await batch.getState()) !== 'completed';) {
      if (Date.now() > end) throw new Error(`batch job still ${await batch.getState()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(((await queue.getJob(batch.id!)) as Job).returnvalue).toEqual(['not_an_order', 'duplicate']);
    await queue.close();
    // ... and applied five times at once.
    const service = h.partners.app.get(OrderPaymentService);
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => service.applyTransactionCompleted(payload)));
    expect(outcomes).toEqual(Array(5).fill('duplicate'));
    expect(await service.appliedEventIds([payload.eventId, other.eventId, randomUUID()])).toEqual(new Set([payload.eventId]));
    await new Promise((r) => setTimeout(r, 500));

    expect((await eventRows(o.orderId)).map((r) => r.type)).toEqual(['order.paid']);
    expect(h.receiver.received.filter((w) => w.body.event === 'order.paid' && w.body.data.orderId === o.orderId)).toHaveLength(1);
    const processed = await h.admin.query(`SELECT outcome FROM partners.ledger_events_processed WHERE event_id = $1`, [payload.eventId]);
    expect(processed.rows).toEqual([{ outcome: 'paid' }]);
  });

  it('while the ledger cannot be asked whether an order was paid, the sweep expires no live order but does the rest; the next sweep expires it', async () => {
    const o = await order({ ttlSeconds: 60 });
    await h.admin.query(`UPDATE partners.orders SET expires_at = created_at + interval '1 millisecond' WHERE id = $1`, [o.orderId]);
    // A connection request nobody answered in time, due in the same sweep.
    h.directory.add('+237699000009');
    const request = await h.call('POST', '/partners-public/connections/request', {
      key,
      body: { merchantPhone: '+237699000009', scopes: ['orders.read'] },
    });
    expect(request.status).toBe(200);
    await h.admin.query(`UPDATE partners.connections SET pending_expires_at = now() - interval '1 second' WHERE id = $1`, [
      request.body.connectionId,
    ]);
    const statuses = async () =>
      (
        await h.admin.query(
          `SELECT (SELECT status FROM partners.orders WHERE id = $1) AS order, (SELECT status FROM partners.connections WHERE id = $2) AS connection`,
          [o.orderId, request.body.connectionId],
        )
      ).rows[0];
    const ledgerUrl = h.directory.ledgerUrl;
    h.directory.ledgerUrl = 'http://127.0.0.1:9';
    try {
      expect(await h.partners.app.get(ExpirySweeper).sweep()).toEqual({ orders: 0, connections: 1 });
      expect(await statuses()).toEqual({ order: 'pending', connection: 'expired' });
    } finally {
      h.directory.ledgerUrl = ledgerUrl;
    }
    expect((await h.partners.app.get(ExpirySweeper).sweep()).orders).toBeGreaterThanOrEqual(1);
    expect(await statuses()).toEqual({ order: 'expired', connection: 'expired' });
  });

  it('an order whose payment was applied here and refused (another amount) is not kept pending by the ledger having paid its token: it expires', async () => {
    const o = await order({ ttlSeconds: 60 });
    await pay(o, { amount: 2_400 });
    await waitFor(async () => {
      const { rows } = await h.admin.query(`SELECT kind FROM partners.payment_anomalies WHERE order_id = $1`, [o.orderId]);
      return rows[0]?.kind === 'payment_mismatch' ? true : undefined;
    });
    await h.admin.query(`UPDATE partners.orders SET expires_at = created_at + interval '1 millisecond' WHERE id = $1`, [o.orderId]);
    await h.partners.app.get(ExpirySweeper).sweep();
    const { rows } = await h.admin.query(`SELECT status FROM partners.orders WHERE id = $1`, [o.orderId]);
    expect(rows[0].status).toBe('expired');
  });

  it('a payment for an expired order is not dropped: no order.paid, an open anomaly for reversal, the order stays expired', async () => {
    const o = await order({ ttlSeconds: 60 });
    await h.admin.query(`UPDATE partners.orders SET expires_at = created_at + interval '1 millisecond' WHERE id = $1`, [o.orderId]);
    await h.partners.app.get(ExpirySweeper).sweep();
    const expiredHook = await h.receiver.waitFor((w) => w.body.event === 'order.expired' && w.body.data.orderId === o.orderId);
    expect(expiredHook.body.data).toEqual({
      orderId: o.orderId,
      amount: 2500,
      currencyCode: 'XAF',
      expiresAt: expect.any(String),
      expiredAt: expect.any(String),
    });

    const paid = await pay(o);
    const anomaly = await waitFor(async () => {
      const { rows } = await h.admin.query(`SELECT * FROM partners.payment_anomalies WHERE order_id = $1`, [o.orderId]);
      return rows[0];
    });
    expect(anomaly).toMatchObject({
      kind: 'order_expired',
      status: 'open',
      transaction_id: paid.transactionId,
      transaction_reference: paid.referenceId,
      amount: '2500',
    });
    expect((await h.call('GET', `/partners-public/orders/${o.orderId}`, { key })).body.status).toBe('expired');
    expect((await eventRows(o.orderId)).map((r) => r.type)).toEqual(['order.expired']);

    const listed = await h.internal('GET', '/internal/partners/payment-anomalies?status=open');
    const view = listed.body.data.find((a: { orderId: string }) => a.orderId === o.orderId);
    expect(view).toMatchObject({
      kind: 'order_expired',
      destinationAccountId: merchantAccounts.XAF,
      details: expect.objectContaining({ sourceAccountId: payer.XAF }),
    });
    const resolved = await h.internal('POST', `/internal/partners/payment-anomalies/${view.id}/resolve`, {
      resolution: 'Reversed by MMPTX-TEST',
      resolvedBy: 'ops-1',
    });
    expect(resolved.body).toMatchObject({ status: 'resolved', resolution: 'Reversed by MMPTX-TEST', resolvedBy: 'ops-1' });
    expect(
      (await h.internal('POST', `/internal/partners/payment-anomalies/${view.id}/resolve`, { resolution: 'again', resolvedBy: 'ops-1' }))
        .body.code,
    ).toBe('CONFLICT');
    const metrics = await h.partners.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/partners_payment_anomalies_total\{kind="order_expired"\} 1/);
  });

  it('a second payment of a paid order and a payment that differs from its order are recorded as anomalies too', async () => {
    const o = await order();
    await pay(o);
    await h.receiver.waitFor((w) => w.body.event === 'order.paid' && w.body.data.orderId === o.orderId);
    await pay(o);
    const mismatched = await order({ amount: 3000 });
    await pay(mismatched, { amount: 2999 });
    const elsewhere = await order();
    const stranger = await h.payments!.wallet('MERCHANT');
    await pay(elsewhere, { destination: stranger.XAF });

    const kinds = await waitFor(async () => {
      const { rows } = await h.admin.query(
        `SELECT order_id, kind, details::text AS details FROM partners.payment_anomalies WHERE order_id = ANY($1::uuid[])`,
        [[o.orderId, mismatched.orderId, elsewhere.orderId]],
      );
      return rows.length === 3 ? rows : undefined;
    });
    const byOrder = Object.fromEntries(kinds.map((r) => [r.order_id, r]));
    expect(byOrder[o.orderId].kind).toBe('order_already_paid');
    expect(byOrder[mismatched.orderId].kind).toBe('payment_mismatch');
    expect(JSON.parse(byOrder[mismatched.orderId].details).mismatches).toEqual({ amount: { expected: 3000, actual: 2999 } });
    expect(JSON.parse(byOrder[elsewhere.orderId].details).mismatches).toEqual({
      destinationAccountId: { expected: merchantAccounts.XAF, actual: stranger.XAF },
    });
    for (const id of [mismatched.orderId, elsewhere.orderId]) {
      expect((await h.call('GET', `/partners-public/orders/${id}`, { key })).body.status).toBe('pending');
    }
    expect((await eventRows(o.orderId)).map((r) => r.type)).toEqual(['order.paid']);
  });

  it('ledger transactions without a QR token, or with a token that is no order, are ignored', async () => {
    const service = h.partners.app.get(OrderPaymentService);
    const base = {
      eventId: '5d7f4a8e-9a1b-4c2d-8e3f-1a2b3c4d5e6f',
      type: 'transaction.completed' as const,
      occurredAt: new Date().toISOString(),
      transactionId: '6e8f5b9f-0b2c-4d3e-9f40-2b3c4d5e6f70',
      referenceId: 'MMPTX0000000000001',
      intentId: '7f906c0a-1c3d-4e4f-8a51-3c4d5e6f7081',
      intentType: 'TRANSFER' as const,
      amount: 10,
      fee: 0,
      commission: 0,
      currency: 'XAF',
      sourceAccountId: payer.XAF,
      destinationAccountId: merchantAccounts.XAF,
      createdBy: 'x',
      typeCode: 'P2P',
      agentId: null,
      correlationId: null,
    };
    expect(await service.applyTransactionCompleted({ ...base, qrToken: null })).toBe('not_an_order');
    expect(await service.applyTransactionCompleted({ ...base, qrToken: 'pqr_somebody_elses_qr' })).toBe('not_an_order');
  });

  it('test mode: the helper pays a test order (order.paid to the test endpoint, signed with the test secret)', async () => {
    const req = await h.call('POST', '/partners-public/connections/request', {
      key: testKey,
      body: { merchantPhone: '+237699000001', scopes: ['orders.write'] },
    });
    const activated = await h.call('POST', `/partners-public/test-helpers/connections/${req.body.connectionId}/activate`, { key: testKey });
    // Test orders name the test connection's merchantId (a stand-in: test mode never looks a phone up).
    const testMerchantId = activated.body.merchantId as string;
    const o = (
      await h.call('POST', '/partners-public/orders', {
        key: testKey,
        body: { merchantId: testMerchantId, amount: 150, externalReference: 'T-1' },
      })
    ).body;
    expect((await h.call('POST', `/partners-public/test-helpers/orders/${o.orderId}/pay`, { key })).body.code).toBe('TEST_MODE_ONLY');
    const paid = await h.call('POST', `/partners-public/test-helpers/orders/${o.orderId}/pay`, { key: testKey });
    expect(paid.body).toMatchObject({ status: 'paid', livemode: false, paidAt: expect.any(String) });
    expect((await h.call('POST', `/partners-public/test-helpers/orders/${o.orderId}/pay`, { key: testKey })).body).toMatchObject({
      code: 'CONFLICT',
      message: 'A paid order cannot be paid',
    });
    const late = (
      await h.call('POST', '/partners-public/orders', {
        key: testKey,
        body: { merchantId: testMerchantId, amount: 150, externalReference: 'T-2' },
      })
    ).body;
    await h.admin.query(`UPDATE partners.orders SET status = 'expired', expired_at = now() WHERE id = $1`, [late.orderId]);
    expect((await h.call('POST', `/partners-public/test-helpers/orders/${late.orderId}/pay`, { key: testKey })).body).toMatchObject({
      code: 'CONFLICT',
      message: 'An expired order cannot be paid',
    });
    // Past its expiresAt but not swept yet: not payable, as a customer's payment of a live order would not be.
    const unswept = (
      await h.call('POST', '/partners-public/orders', {
        key: testKey,
        body: { merchantId: testMerchantId, amount: 150, externalReference: 'T-3' },
      })
    ).body;
    await h.admin.query(
      `UPDATE partners.orders SET created_at = now() - interval '1 hour', expires_at = now() - interval '10 minutes' WHERE id = $1`,
      [unswept.orderId],
    );
    const refused = await h.call('POST', `/partners-public/test-helpers/orders/${unswept.orderId}/pay`, { key: testKey });
    expect([refused.status, refused.body.code]).toEqual([422, 'ORDER_NOT_PAYABLE']);
    const { rows } = await h.admin.query(`SELECT status FROM partners.orders WHERE id = $1`, [unswept.orderId]);
    expect(rows[0].status).toBe('pending');
    const hook = await h.receiver.waitFor((w) => w.body.event === 'order.paid' && w.body.data.orderId === o.orderId);
    expect(hook.body.data).toEqual({
      orderId: o.orderId,
      transactionId: expect.stringMatching(/^TEST[0-9A-Z]{12}$/),
      amount: 150,
      currencyCode: 'XAF',
      paidAt: paid.body.paidAt,
      externalReference: 'T-1',
    });
    // Live keys do not see test events.
    const live = await h.call('GET', '/partners-public/events?type=order.paid&limit=100', { key });
    expect(live.body.data.map((e: Body) => e.data.orderId)).not.toContain(o.orderId);
  });
});
