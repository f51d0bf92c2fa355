import { randomUUID } from 'node:crypto';
import { Queue, type Worker } from 'bullmq';
import { QUEUES } from '@mm/contracts';
import { LedgerEventsWorker } from '../../apps/partners/src/payments/ledger-events.worker';
import { ExpirySweeper } from '../../apps/partners/src/sweeper/expiry-sweeper.service';
import { isUuidV4 } from '@mm/platform';
import { callerKey } from '../support/test-env';
import { type PartnersPlatform as Platform } from './partners-platform';
import { type Json, PartnersPlatform } from './partners-platform';
import { E2E_ADMIN } from './partners-support';

/**
 * The partner integration end to end (docs/partners.md "1. The shape of an integration"), every hop
 * real: an administrator creates an integration (key shown once), the partner asks a merchant to
 * connect, the merchant accepts in the app (connection.activated reaches the partner), the partner
 * creates an order, a customer pays its QR in the ledger, and order.paid reaches the partner's receiver,
 * signature verified with libs/webhook-signature.
 */
interface Registered {
  phone: string;
  pin: string;
  token: string;
  merchantId?: string;
  accounts: Record<string, string>;
}

/** A user registered through the orchestrator's real registration workflow, signed in. */
async function register(p: Platform, kind: 'merchant' | 'customer', phone: string): Promise<Registered> {
  const person = { phone, pin: '2580', firstName: 'Awa', lastName: 'Test', countryCode: 'CM' };
  const res =
    kind === 'merchant'
      ? await p.call('POST', '/api/orchestrator/auth/register/merchant', {
          body: { ...person, businessName: 'Boutique Awa', category: 'FOOD_AND_DRINK' },
        })
      : await p.call('POST', '/api/orchestrator/auth/register', { body: person });
  if (res.status !== 201) throw new Error(`register ${kind} ${res.status} ${res.text}`);
  return {
    phone,
    pin: person.pin,
    token: await p.login(phone, person.pin),
    merchantId: res.body.merchantId,
    accounts: res.body.accounts ?? {},
  };
}

/** Money into an account from outside the intent flow (the ledger's test funding). */
async function fund(p: Platform, accountId: string, amount: number): Promise<void> {
  const res = await fetch(`${p.ledger.url}/v1/accounts/${accountId}/balance/add`, {
    method: 'PUT',
    headers: { 'x-service-key': callerKey('ops'), 'content-type': 'application/json' },
    body: JSON.stringify({ amount, reason: 'test funding', createdBy: 'test' }),
  });
  if (res.status !== 200) throw new Error(`fund ${res.status} ${await res.text()}`);
}

/**
 * An integration created by the administrator and a merchant connected to it through the app (the
 * first case walks these steps one by one, with their checks): the live key and the merchant.
 */
async function connectedMerchant(p: Platform, till: { name: string; email: string; phone: string; scopes: string[] }) {
  const admin = await p.login(E2E_ADMIN.phone, E2E_ADMIN.pin);
  const created = await p.call('POST', '/api/admin/partners/integrations', {
    token: admin,
    body: { name: till.name, technicalContactEmail: till.email, webhookUrl: p.receiver.url },
  });
  const key: string = created.body.apiKeys.live.key;
  const merchant = await register(p, 'merchant', till.phone);
  const request = await p.call('POST', '/api/partners-public/connections/request', {
    key,
    body: { merchantPhone: merchant.phone, scopes: till.scopes },
  });
  await p.call('POST', `/api/merchant/connections/${request.body.connectionId}/accept`, { token: merchant.token });
  return { key, merchant };
}

describe('partner API journey through the gateway', () => {
  const p = new PartnersPlatform();
  // A 2 s expiry grace: an order's payBy is 1 s after its expiresAt (the last case waits it out).
  beforeAll(() => p.start({ PARTNERS_ORDER_EXPIRY_GRACE_SEC: '2' }), 60_000);
  afterAll(() => p.stop());

  it('integration → connection → acceptance → order → ledger payment → verified order.paid', async () => {
    // 1. The administrator creates the integration; the keys and webhook secrets are shown once.
    const admin = await p.login(E2E_ADMIN.phone, E2E_ADMIN.pin);
    const created = await p.call('POST', '/api/admin/partners/integrations', {
      token: admin,
      body: { name: 'Caisse Rapide', technicalContactEmail: 'tech@pos.example', webhookUrl: p.receiver.url },
    });
    expect(created.status).toBe(201);
    const key: string = created.body.apiKeys.live.key;
    p.receiver.secrets.push(created.body.webhookSecrets.live);
    const keys = await p.call('GET', `/api/admin/partners/integrations/${created.body.integration.id}/keys`, { token: admin });
    expect(keys.text).not.toContain(key);

    // 2. A merchant registers (the real workflow: auth user, customer, wallet); the partner asks it to connect.
    const merchant = await register(p, 'merchant', '+237690777001');
    const request = await p.call('POST', '/api/partners-public/connections/request', {
      key,
      body: { merchantPhone: merchant.phone, scopes: ['orders.write', 'orders.read'], requestedReason: 'Payments at till 1' },
    });
    expect(request.status).toBe(200);
    expect(request.body).toMatchObject({ status: 'pending', alreadyExisted: false });
    for (const res of [request, created]) {
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get('server-timing')).toMatch(/^total;dur=/);
    }

    // 3. The merchant sees it in clear and accepts; the partner is told.
    const merchantToken = merchant.token;
    const pending = await p.call('GET', '/api/merchant/connections', { token: merchantToken });
    if (pending.status !== 200) throw new Error(pending.text);
    expect(pending.body.data).toEqual([
      expect.objectContaining({
        id: request.body.connectionId,
        integrationName: 'Caisse Rapide',
        scopes: ['orders.write', 'orders.read'],
        status: 'pending',
      }),
    ]);
    const accepted = await p.call('POST', `/api/merchant/connections/${request.body.connectionId}/accept`, { token: merchantToken });
    expect(accepted.body.status).toBe('active');
    const activated = await p.receiver.waitFor((w) => w.body.event === 'connection.activated');
    expect(activated.body.data).toEqual({
      connectionId: request.body.connectionId,
      merchantId: merchant.merchantId,
      scopes: ['orders.write', 'orders.read'],
      activatedAt: accepted.body.activatedAt,
    });

    // 4. The partner creates an order (with an Idempotency-Key: a retry gets the same bytes).
    const orderBody = { merchantId: merchant.merchantId, amount: 4500, externalReference: 'TILL1-000123', description: '3 sandwiches' };
    const idem = { 'idempotency-key': randomUUID() };
    const order = await p.call('POST', '/api/partners-public/orders', { key, body: orderBody, headers: idem });
    expect(order.status).toBe(201);
    expect((await p.call('POST', '/api/partners-public/orders', { key, body: orderBody, headers: idem })).text).toBe(order.text);
    const o: Json = order.body;

    // 5. A customer pays the QR through the public intent flow (the orchestrator resolves it at partners).
    const resolved = await fetch(`${p.partners.url}/internal/partners/qr/${o.qrToken}`, {
      headers: { 'x-service-key': callerKey('orchestrator') },
    }).then((r) => r.json() as Promise<Json>);
    expect(resolved).toMatchObject({
      orderId: o.orderId,
      payable: true,
      destinationAccountId: merchant.accounts.XAF,
      amount: 4500,
      currencyCode: 'XAF',
    });
    const customer = await register(p, 'customer', '+237690777002');
    await fund(p, customer.accounts.XAF, 50_000);
    const intent = await p.call('POST', '/api/v1/intents', {
      token: customer.token,
      body: { type: 'TRANSFER', amount: 4500, qrToken: o.qrToken, idempotencyKey: randomUUID() },
    });
    expect(intent.status).toBe(201);
    const pin = await p.call('POST', `/api/v1/intents/${intent.body.intentId}/verify-pin`, {
      token: customer.token,
      body: { pin: customer.pin },
    });
    expect(pin.status).toBe(200);
    const confirmed = await p.call('POST', `/api/v1/intents/${intent.body.intentId}/confirm`, { token: customer.token });
    expect(confirmed.status).toBe(200);
    const tx = await p.sql.query(`SELECT id, reference_id FROM ledger.transactions WHERE intent_id = $1`, [intent.body.intentId]);
    const paid = { transactionId: tx.rows[0].id as string, referenceId: tx.rows[0].reference_id as string };
    const { rows } = await p.sql.query(`SELECT completed_at FROM ledger.transactions WHERE id = $1`, [paid.transactionId]);

    // 6. order.paid at the partner's receiver: signature verified, every field checked.
    const hook = await p.receiver.waitFor((w) => w.body.event === 'order.paid' && w.body.data.orderId === o.orderId);
    expect(hook.verified).toBe(true);
    expect(isUuidV4(hook.body.id)).toBe(true);
    expect(hook.headers['svc-event-id']).toBe(hook.body.id);
    expect(hook.headers['svc-event']).toBe('order.paid');
    expect(hook.headers['svc-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(hook.body.data).toEqual({
      orderId: o.orderId,
      transactionId: paid.referenceId,
      amount: 4500,
      currencyCode: 'XAF',
      paidAt: rows[0].completed_at.toISOString(),
      externalReference: 'TILL1-000123',
      description: '3 sandwiches',
    });
    expect(p.receiver.received.filter((w) => w.body.data?.orderId === o.orderId)).toHaveLength(1);

    // 7. What the partner can read afterwards.
    expect((await p.call('GET', `/api/partners-public/orders/${o.orderId}`, { key })).body).toMatchObject({
      status: 'paid',
      paidAt: hook.body.data.paidAt,
    });
    const events = await p.call('GET', '/api/partners-public/events', { key });
    expect(events.body.data.map((e: Json) => e.event)).toEqual(['order.paid', 'connection.activated']);
    expect(events.body.data[0]).toEqual(hook.body);
  }, 60_000);

  it("a QR payment started in time but confirmed after the order's payBy is refused: nothing moves, no anomaly", async () => {
    const { key, merchant } = await connectedMerchant(p, {
      name: 'Slow Till',
      email: 'tech@slow.example',
      phone: '+237690777011',
      scopes: ['orders.write'],
    });
    const order = await p.call('POST', '/api/partners-public/orders', { key, body: { merchantId: merchant.merchantId, amount: 700 } });
    expect(order.status).toBe(201);
    // The order runs out in 2 s (the shortest TTL the API takes is 60 s).
    await p.sql.query(`UPDATE partners.orders SET expires_at = now() + interval '2 seconds' WHERE id = $1`, [order.body.orderId]);

    const customer = await register(p, 'customer', '+237690777012');
    await fund(p, customer.accounts.XAF, 10_000);
    const intent = await p.call('POST', '/api/v1/intents', {
      token: customer.token,
      body: { type: 'TRANSFER', amount: 700, qrToken: order.body.qrToken, idempotencyKey: randomUUID() },
    });
    expect(intent.status).toBe(201);
    // The intent ends at the order's payBy (expiresAt + 1 s), not after the ledger's 10 minutes.
    const { rows: ends } = await p.sql.query(
      `SELECT o.expires_at AS order_ends, i.expires_at AS intent_ends
         FROM partners.orders o, ledger.transaction_intents i WHERE o.id = $1 AND i.id = $2`,
      [order.body.orderId, intent.body.intentId],
    );
    expect(ends[0].intent_ends.getTime() - ends[0].order_ends.getTime()).toBe(1_000);
    expect(
      (await p.call('POST', `/api/v1/intents/${intent.body.intentId}/verify-pin`, { token: customer.token, body: { pin: customer.pin } }))
        .status,
    ).toBe(200);

    // The customer confirms after payBy: the order can no longer be paid, so neither can the intent.
    await new Promise((r) => setTimeout(r, Math.max(0, ends[0].intent_ends.getTime() - Date.now()) + 200));
    const confirmed = await p.call('POST', `/api/v1/intents/${intent.body.intentId}/confirm`, { token: customer.token });
    expect({ status: confirmed.status, code: confirmed.body.code }).toEqual({ status: 400, code: 'INTENT_EXPIRED' });
    const tx = await p.sql.query(`SELECT 1 FROM ledger.transactions WHERE intent_id = $1`, [intent.body.intentId]);
    expect(tx.rowCount).toBe(0);
    const anomalies = await p.sql.query(`SELECT 1 FROM partners.payment_anomalies WHERE order_id = $1`, [order.body.orderId]);
    expect(anomalies.rowCount).toBe(0);
    const { rows: balances } = await p.sql.query(`SELECT balance FROM ledger.accounts WHERE id = $1`, [merchant.accounts.XAF]);
    expect(Number(balances[0].balance)).toBe(0);
  }, 60_000);
  it('a payment committed in time whose event has not reached partners by the expiry sweep: the sweep pays the order from the ledger (one order.paid, no order.expired, no anomaly)', async () => {
    const { key, merchant } = await connectedMerchant(p, {
      name: 'Late Events Till',
      email: 'tech@late.example',
      phone: '+237690777021',
      scopes: ['orders.write', 'orders.read'],
    });
    const order = async (amount: number): Promise<Json> => {
      const res = await p.call('POST', '/api/partners-public/orders', { key, body: { merchantId: merchant.merchantId, amount } });
      expect(res.status).toBe(201);
      // It runs out in 3 s (the shortest TTL the API takes is 60 s).
      await p.sql.query(`UPDATE partners.orders SET expires_at = now() + interval '3 seconds' WHERE id = $1`, [res.body.orderId]);
      return res.body;
    };
    const paidLate = await order(900);
    const unpaid = await order(901);

    // Partners' consumer of the ledger's events stalls (Redis down, a backlog, a restart): paused here.
    const worker = (p.partners.app.get(LedgerEventsWorker) as unknown as { worker: Worker }).worker;
    await worker.pause();
    try {
      const customer = await register(p, 'customer', '+237690777022');
      await fund(p, customer.accounts.XAF, 10_000);
      const intent = await p.call('POST', '/api/v1/intents', {
        token: customer.token,
        body: { type: 'TRANSFER', amount: 900, qrToken: paidLate.qrToken, idempotencyKey: randomUUID() },
      });
      expect(intent.status).toBe(201);
      const id = intent.body.intentId as string;
      expect(
        (await p.call('POST', `/api/v1/intents/${id}/verify-pin`, { token: customer.token, body: { pin: customer.pin } })).status,
      ).toBe(200);
      expect((await p.call('POST', `/api/v1/intents/${id}/confirm`, { token: customer.token })).status).toBe(200);

      // Past both orders' expiresAt + grace (2 s), the sweep runs before the payment's event is applied.
      const { rows: ends } = await p.sql.query(`SELECT max(expires_at) AS last FROM partners.orders WHERE id = ANY ($1::uuid[])`, [
        [paidLate.orderId, unpaid.orderId],
      ]);
      await new Promise((r) => setTimeout(r, Math.max(0, ends[0].last.getTime() - Date.now()) + 2_300));
      // (the previous case's order, due too, is swept as well)
      expect((await p.partners.app.get(ExpirySweeper).sweep()).orders).toBeGreaterThanOrEqual(1);
      const status = async (orderId: string) =>
        (await p.sql.query(`SELECT status FROM partners.orders WHERE id = $1`, [orderId])).rows[0].status as string;
      expect({ paidLate: await status(paidLate.orderId), unpaid: await status(unpaid.orderId) }).toEqual({
        paidLate: 'paid',
        unpaid: 'expired',
      });
    } finally {
      worker.resume();
    }

    // The event arrives after all (the worker drains its queue): a duplicate of what the sweep applied.
    const queue = new Queue(QUEUES.ledgerEvents, { connection: { url: p.redis.url }, prefix: `${p.redis.prefix}:bull` });
    try {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        if (Object.values(counts).every((n) => n === 0)) break;
        if (Date.now() > deadline) throw new Error(`ledger-events not drained: ${JSON.stringify(counts)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await queue.close();
    }
    const { rows: events } = await p.sql.query(`SELECT type FROM partners.events WHERE subject_id = $1 ORDER BY created_at`, [
      paidLate.orderId,
    ]);
    const anomalies = await p.sql.query(`SELECT 1 FROM partners.payment_anomalies WHERE order_id = $1`, [paidLate.orderId]);
    const { rows: after } = await p.sql.query(`SELECT status FROM partners.orders WHERE id = $1`, [paidLate.orderId]);
    expect({ status: after[0].status, events: events.map((e) => e.type), anomalies: anomalies.rowCount }).toEqual({
      status: 'paid',
      events: ['order.paid'],
      anomalies: 0,
    });
  }, 90_000);
});
