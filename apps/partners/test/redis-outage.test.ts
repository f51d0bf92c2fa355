import { OrderPaymentService } from '../src/payments/order-payment.service';
import { EventRelay } from '../src/events/event-relay.service';
import { type Body, type PartnersHarness, startPartners } from './support/partners-harness';
import { RedisProxy } from './support/redis-proxy';
import { TEST_REDIS_URL } from '../../../test/support/infra';

/**
 * Redis is away while orders are paid: the ledger's outbox and ours keep the events, and every
 * order.paid arrives once Redis is back. Partners and the ledger reach Redis through a relay the
 * test can cut; the dispatcher and the test's own checks use Redis directly.
 */
describe('partners: Redis down while an order is paid', () => {
  let h: PartnersHarness;
  let proxy: RedisProxy;
  let key: string;
  let merchantId: string;
  let merchantAccounts: Record<string, string>;
  let payer: Record<string, string>;

  beforeAll(async () => {
    const target = new URL(TEST_REDIS_URL);
    proxy = await new RedisProxy({ host: target.hostname, port: Number(target.port || 6379) }).start();
    h = await startPartners({ PARTNERS_OUTBOX_POLL_MS: '200' }, { ledger: true, appRedisUrl: proxy.url });
    key = (await h.integration()).apiKeys.live.key;
    merchantAccounts = await h.payments!.wallet('MERCHANT');
    payer = await h.payments!.wallet('USER');
    await h.payments!.fund(payer.XAF, 100_000);
    merchantId = h.directory.add('+237698000001', { accounts: merchantAccounts }).merchantId;
    const req = await h.call('POST', '/partners-public/connections/request', {
      key,
      body: { merchantPhone: '+237698000001', scopes: ['orders.write'] },
    });
    await h.internal('POST', `/internal/partners/merchants/${merchantId}/connections/${req.body.connectionId}/accept`);
  });
  afterAll(async () => {
    await proxy.restore();
    await h.close();
    await proxy.stop();
  });

  const order = async (): Promise<Body> =>
    (await h.call('POST', '/partners-public/orders', { key, body: { merchantId, amount: 1200 } })).body;

  it('the ledger commits while Redis is down; order.paid is delivered after Redis returns', async () => {
    const o = await order();
    await proxy.cut();
    const paid = await h.payments!.payQr({ source: payer.XAF, destination: merchantAccounts.XAF, amount: 1200, qrToken: o.qrToken });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(h.receiver.received.some((w) => w.body.data?.orderId === o.orderId)).toBe(false);
    const { rows } = await h.admin.query(`SELECT published_at FROM ledger.outbox WHERE aggregate_id = $1`, [paid.transactionId]);
    expect(rows[0].published_at).toBeNull();

    await proxy.restore();
    const hook = await h.receiver.waitFor((w) => w.body.event === 'order.paid' && w.body.data.orderId === o.orderId, 20_000);
    expect(hook.body.data.transactionId).toBe(paid.referenceId);
  }, 40_000);

  it('our own outbox: an order paid while Redis is down keeps its event until the relay can hand it over', async () => {
    const o = await order();
    await proxy.cut();
    // The ledger event reaches partners (as it would from a replica whose Redis connection survived) ...
    const outcome = await h.partners.app.get(OrderPaymentService).applyTransactionCompleted({
      eventId: '0c4a6e8f-1b3d-4f5a-8c7e-9f0a1b2c3d4e',
      type: 'transaction.completed',
      occurredAt: new Date().toISOString(),
      transactionId: '1d5b7f90-2c4e-4a6b-9d8f-0a1b2c3d4e5f',
      referenceId: 'MMPTX2611220OUTAGE',
      intentId: '2e6c8a01-3d5f-4b7c-8e90-1b2c3d4e5f60',
      intentType: 'TRANSFER',
      amount: 1200,
      fee: 0,
      commission: 0,
      currency: 'XAF',
      sourceAccountId: payer.XAF,
      destinationAccountId: merchantAccounts.XAF,
      qrToken: o.qrToken,
      createdBy: 'payer',
      typeCode: 'QR_PAYMENT',
      agentId: null,
      correlationId: null,
    });
    expect(outcome).toBe('paid');
    // ... but the relay cannot reach the queue: the event waits, with the failure recorded. The
    // commit's own wake-up may already be running a pass that started before the event existed
    // (tick() then answers that pass), so the failure is awaited, not read after one tick.
    const read = () =>
      h.admin.query(`SELECT dispatched_at, dispatch_attempts, last_error FROM partners.events WHERE subject_id = $1`, [o.orderId]);
    let waiting = await read();
    for (const deadline = Date.now() + 15_000; !waiting.rows[0]?.last_error && Date.now() < deadline; waiting = await read()) {
      await h.partners.app.get(EventRelay).tick();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(waiting.rows[0]).toMatchObject({ dispatched_at: null, last_error: expect.any(String) });
    expect(waiting.rows[0].dispatch_attempts).toBeGreaterThanOrEqual(1);

    await proxy.restore();
    const hook = await h.receiver.waitFor((w) => w.body.event === 'order.paid' && w.body.data.orderId === o.orderId, 20_000);
    expect(hook.body.data).toMatchObject({ transactionId: 'MMPTX2611220OUTAGE', amount: 1200 });
    // The relay marks the event in the transaction that handed it over, which commits just after the
    // enqueue: the dispatcher may deliver first, so the mark is awaited, not read at once.
    const dispatchedAt = async () =>
      (await h.admin.query(`SELECT dispatched_at FROM partners.events WHERE subject_id = $1`, [o.orderId])).rows[0].dispatched_at;
    const deadline = Date.now() + 10_000;
    while ((await dispatchedAt()) === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await dispatchedAt()).toBeInstanceOf(Date);
  }, 40_000);
});
