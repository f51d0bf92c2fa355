import { randomUUID } from 'node:crypto';
import { requestHash } from '../../apps/ledger-wallets/src/idempotency/canonical-hash';
import { IntentCreateService } from '../../apps/orchestrator/src/intents/intent-create.service';
import { PaymentIntentStore } from '../../apps/orchestrator/src/intents/payment-intent.store';
import type { PaymentIntentRecord } from '../../apps/orchestrator/src/intents/payment-intent.types';
import { BlocklistService } from '../../apps/orchestrator/src/risk/blocklist.service';
import { cuttingLedgerProxy } from '../support/cutting-proxy';
import type { RunningApp } from '../support/boot';
import { MoneyPlatform, type TestUser } from './money-platform';

/**
 * What a create retried under the same idempotencyKey may and may not reuse, through the gateway:
 * - a withdrawal-code cash-out the ledger refused is replayed without OTP only while the code is
 *   within its lifetime; once it expired, the ledger (asked with the very same request, whose
 *   `createBy` is the code's expiry) answers the intent it created in time, if its answer was lost,
 *   and otherwise refuses: the replay is then refused and the record closed;
 * - a stored risk decision answers the request it judged, not another body sent under the same key.
 */
describe('money replays: consent and risk decisions stay bound to their request', () => {
  const p = new MoneyPlatform();
  let agent: TestUser;

  beforeAll(async () => {
    await p.start();
    agent = await p.register('AGENT');
    await p.fund(agent.accounts.XAF, 1_000_000);
  });
  afterAll(() => p.stop());

  const create = (user: TestUser, body: Record<string, unknown>) => p.call('POST', '/api/v1/intents', { token: user.token, body });

  async function issueQr(customer: TestUser, amount: number): Promise<string> {
    const qr = await p.call('POST', '/api/v1/withdrawal-qr', { token: customer.token, body: { amount } });
    expect(qr.status).toBe(201);
    return qr.body.qrToken as string;
  }

  /**
   * Rewrites a record's stored ledger request, as if it had been written so. The record's guard
   * trigger (its terms never change) is off for this one statement's transaction only.
   */
  async function rewriteLedgerRequest(key: string, request: Record<string, unknown>): Promise<void> {
    const client = await p.sql.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL session_replication_role = replica`);
      await client.query(`UPDATE orchestrator.payment_intents SET ledger_request = $2::jsonb WHERE idempotency_key = $1`, [
        key,
        JSON.stringify(request),
      ]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  }

  /**
   * Days pass for a withdrawal-code cash-out: its code's lifetime, and with it the deadline for
   * creating (`createBy`) fixed in the stored ledger request, move back by `days`. When the ledger
   * stored a creation under the key, that creation's request hash follows the rewritten request, so
   * the same request still replays it (as the real request would, sent days later).
   */
  async function ageQrCashOut(customer: TestUser, key: string, days: number): Promise<void> {
    await p.sql.query(
      `UPDATE orchestrator.withdrawal_qrs SET created_at = created_at - make_interval(days => $2), expires_at = expires_at - make_interval(days => $2)
        WHERE customer_user_id = $1`,
      [customer.userId, days],
    );
    const [{ ledger_request: before }] = (
      await p.sql.query(`SELECT ledger_request FROM orchestrator.payment_intents WHERE idempotency_key = $1`, [key])
    ).rows;
    expect(before.createBy).toEqual(expect.any(String));
    const after = { ...before, createBy: new Date(Date.parse(before.createBy) - days * 86_400_000).toISOString() };
    await rewriteLedgerRequest(key, after);
    const stored = await p.sql.query(`SELECT request_hash FROM ledger.idempotency_keys WHERE scope = 'intent.create' AND key = $1`, [key]);
    if (stored.rows.length === 0) return;
    expect(stored.rows[0].request_hash).toBe(requestHash(before));
    await p.sql.query(`UPDATE ledger.idempotency_keys SET request_hash = $2 WHERE scope = 'intent.create' AND key = $1`, [
      key,
      requestHash(after),
    ]);
  }

  const ledgerIntentsOf = async (key: unknown) =>
    (await p.sql.query(`SELECT id, status FROM ledger.transaction_intents WHERE idempotency_key = $1`, [key])).rows as Array<{
      id: string;
      status: string;
    }>;
  const recordOf = async (key: unknown) =>
    (
      await p.sql.query(`SELECT stage, ledger_intent_id, failure_reason FROM orchestrator.payment_intents WHERE idempotency_key = $1`, [
        key,
      ])
    ).rows[0];

  /** An orchestrator whose ledger answers to the first `times` creations are cut `when`; its own retries are off. */
  async function gatewayLosingCreates(when: 'before' | 'after', run: (via: RunningApp) => Promise<void>): Promise<void> {
    const proxy = await cuttingLedgerProxy(p.ledger.url, { when, times: 1, requests: 'creates' });
    try {
      const via = await p.bootGateway({ LEDGER_URL: proxy.url, LEDGER_RETRY_ATTEMPTS: '1' });
      await run(via);
      expect(proxy.cut()).toBe(1);
    } finally {
      await proxy.close();
    }
  }

  /** A cash-out by withdrawal code that the ledger refuses (the customer holds 1 000): the record stays PENDING. */
  async function refusedQrCashOut(customer: TestUser, amount: number): Promise<Record<string, unknown>> {
    const body = { type: 'CASH_OUT', amount, qrToken: await issueQr(customer, amount), idempotencyKey: randomUUID() };
    const first = await create(agent, body);
    expect([first.status, first.body.code]).toEqual([422, 'INSUFFICIENT_BALANCE']);
    return body;
  }

  it('a refused withdrawal-code cash-out replayed while the code is fresh still reaches the ledger (no OTP)', async () => {
    const alice = await p.register('CUSTOMER');
    await p.fund(alice.accounts.XAF, 1_000);
    const body = await refusedQrCashOut(alice, 5_000);
    await p.fund(alice.accounts.XAF, 10_000);
    const replay = await create(agent, body);
    expect(replay.status).toBe(201);
    expect(replay.body).toMatchObject({ requiresOtp: false, amount: 5_000 });
  });

  it('replayed after the code expired: 400 WITHDRAWAL_QR_INVALID, every time; no ledger intent, nothing frozen, the record FAILED', async () => {
    const bob = await p.register('CUSTOMER');
    await p.fund(bob.accounts.XAF, 1_000);
    const body = await refusedQrCashOut(bob, 5_000);
    // Days later: the code's lifetime is long over, and the customer has money now.
    await ageQrCashOut(bob, body.idempotencyKey as string, 3);
    await p.fund(bob.accounts.XAF, 50_000);
    for (let i = 0; i < 2; i++) {
      const replay = await create(agent, body);
      expect([replay.status, replay.body.code]).toEqual([400, 'WITHDRAWAL_QR_INVALID']);
    }
    expect(await p.balance(bob.accounts.XAF)).toEqual({ balance: 51_000, availableBalance: 51_000, frozenBalance: 0 });
    const ledger = await p.sql.query(`SELECT count(*)::int AS n FROM ledger.transaction_intents WHERE idempotency_key = $1`, [
      body.idempotencyKey,
    ]);
    expect(ledger.rows[0].n).toBe(0);
    const record = await p.sql.query(
      `SELECT stage, ledger_intent_id, failure_reason FROM orchestrator.payment_intents WHERE idempotency_key = $1`,
      [body.idempotencyKey],
    );
    expect(record.rows).toEqual([{ stage: 'CLOSED', ledger_intent_id: null, failure_reason: expect.stringContaining('expired') }]);
    // The key still belongs to that request: another body under it is a conflict, not a new operation.
    const other = await create(agent, { ...body, amount: 4_000 });
    expect([other.status, other.body.code]).toEqual([422, 'IDEMPOTENCY_KEY_CONFLICT']);
  });

  it('in the database: past PENDING only CLOSED may lack a ledger intent, and a closed record cannot be revived', async () => {
    const carol = await p.register('CUSTOMER');
    await p.fund(carol.accounts.XAF, 1_000);
    const body = await refusedQrCashOut(carol, 5_000);
    const key = body.idempotencyKey;
    await expect(
      p.sql.query(`UPDATE orchestrator.payment_intents SET stage = 'CREATED' WHERE idempotency_key = $1`, [key]),
    ).rejects.toThrow(/payment_intents_ledger_intent_check/);
    await ageQrCashOut(carol, key as string, 1);
    expect((await create(agent, body)).status).toBe(400);
    await expect(
      p.sql.query(`UPDATE orchestrator.payment_intents SET stage = 'PENDING' WHERE idempotency_key = $1`, [key]),
    ).rejects.toThrow(/final/);
  });

  it("the ledger's answer to the creation was lost, the retry comes after the code expired: 201 with the ledger's intent, which confirms", async () => {
    const dave = await p.register('CUSTOMER');
    await p.fund(dave.accounts.XAF, 20_000);
    const body = { type: 'CASH_OUT', amount: 5_000, qrToken: await issueQr(dave, 5_000), idempotencyKey: randomUUID() };
    await gatewayLosingCreates('after', async (via) => {
      const first = await p.call('POST', '/api/v1/intents', { token: agent.token, body, via });
      expect(first.status).toBeGreaterThanOrEqual(500);
    });
    // The ledger created the intent and holds the money; the orchestrator never heard of it.
    const [made] = await ledgerIntentsOf(body.idempotencyKey);
    expect(made.status).toBe('CREATED');
    expect((await recordOf(body.idempotencyKey)).stage).toBe('PENDING');
    const held = await p.balance(dave.accounts.XAF);
    expect(held.frozenBalance).toBeGreaterThanOrEqual(5_000);

    await ageQrCashOut(dave, body.idempotencyKey, 3);
    // The customer consented while the code was valid: the intent the ledger made then is the answer.
    for (let i = 0; i < 2; i++) {
      const replay = await create(agent, body);
      expect(replay.status).toBe(201);
      expect(replay.body).toMatchObject({ intentId: made.id, status: 'CREATED', requiresOtp: false, amount: 5_000 });
    }
    expect(await recordOf(body.idempotencyKey)).toEqual({ stage: 'CREATED', ledger_intent_id: made.id, failure_reason: null });
    expect(await ledgerIntentsOf(body.idempotencyKey)).toHaveLength(1);

    const pin = await p.call('POST', `/api/v1/intents/${made.id}/verify-pin`, { token: agent.token, body: { pin: agent.pin } });
    expect(pin.status).toBe(200);
    const confirmed = await p.call('POST', `/api/v1/intents/${made.id}/confirm`, { token: agent.token });
    expect([confirmed.status, confirmed.body.status]).toEqual([200, 'SUCCEEDED']);
    expect(await p.balance(dave.accounts.XAF)).toEqual({
      balance: 20_000 - held.frozenBalance,
      availableBalance: 20_000 - held.frozenBalance,
      frozenBalance: 0,
    });
  });

  it('the answer was lost and the retry comes while the code is valid: 201 with the same intent, as before', async () => {
    const erin = await p.register('CUSTOMER');
    await p.fund(erin.accounts.XAF, 20_000);
    const body = { type: 'CASH_OUT', amount: 4_000, qrToken: await issueQr(erin, 4_000), idempotencyKey: randomUUID() };
    await gatewayLosingCreates('after', async (via) => {
      expect((await p.call('POST', '/api/v1/intents', { token: agent.token, body, via })).status).toBeGreaterThanOrEqual(500);
    });
    const [made] = await ledgerIntentsOf(body.idempotencyKey);
    const replay = await create(agent, body);
    expect(replay.status).toBe(201);
    expect(replay.body).toMatchObject({ intentId: made.id, requiresOtp: false });
    expect((await recordOf(body.idempotencyKey)).ledger_intent_id).toBe(made.id);
  });

  it('the creation never reached the ledger and the retry comes after the code expired: 400, nothing created or held, the record FAILED', async () => {
    const fiona = await p.register('CUSTOMER');
    await p.fund(fiona.accounts.XAF, 20_000);
    const body = { type: 'CASH_OUT', amount: 4_000, qrToken: await issueQr(fiona, 4_000), idempotencyKey: randomUUID() };
    await gatewayLosingCreates('before', async (via) => {
      expect((await p.call('POST', '/api/v1/intents', { token: agent.token, body, via })).status).toBeGreaterThanOrEqual(500);
    });
    expect(await ledgerIntentsOf(body.idempotencyKey)).toEqual([]);
    await ageQrCashOut(fiona, body.idempotencyKey, 1);
    for (let i = 0; i < 2; i++) {
      const replay = await create(agent, body);
      expect([replay.status, replay.body.code]).toEqual([400, 'WITHDRAWAL_QR_INVALID']);
    }
    expect(await ledgerIntentsOf(body.idempotencyKey)).toEqual([]);
    expect(await p.balance(fiona.accounts.XAF)).toEqual({ balance: 20_000, availableBalance: 20_000, frozenBalance: 0 });
    expect(await recordOf(body.idempotencyKey)).toEqual({
      stage: 'CLOSED',
      ledger_intent_id: null,
      failure_reason: expect.stringContaining('expired'),
    });
  });

  it('a ledger answer for a record closed meanwhile (stored before createBy) is not answered 201: the ledger intent is canceled, nothing stays held', async () => {
    const gina = await p.register('CUSTOMER');
    await p.fund(gina.accounts.XAF, 20_000);
    const body = { type: 'CASH_OUT', amount: 3_000, qrToken: await issueQr(gina, 3_000), idempotencyKey: randomUUID() };
    const key = body.idempotencyKey;
    await gatewayLosingCreates('after', async (via) => {
      expect((await p.call('POST', '/api/v1/intents', { token: agent.token, body, via })).status).toBeGreaterThanOrEqual(500);
    });
    const [made] = await ledgerIntentsOf(key);
    // As a record written before ledger requests carried createBy (the ledger's stored creation
    // follows the rewritten request), whose code then expired.
    const { rows } = await p.sql.query(`SELECT ledger_request FROM orchestrator.payment_intents WHERE idempotency_key = $1`, [key]);
    const { createBy, ...legacy } = rows[0].ledger_request;
    expect(createBy).toEqual(expect.any(String));
    await rewriteLedgerRequest(key, legacy);
    await p.sql.query(`UPDATE ledger.idempotency_keys SET request_hash = $2 WHERE scope = 'intent.create' AND key = $1`, [
      key,
      requestHash(legacy),
    ]);
    await p.sql.query(
      `UPDATE orchestrator.withdrawal_qrs SET created_at = created_at - interval '1 day', expires_at = expires_at - interval '1 day'
        WHERE customer_user_id = $1`,
      [gina.userId],
    );
    const store = p.gateway.app.get(PaymentIntentStore);
    const pending: PaymentIntentRecord = (await store.findByKey(key))!;
    // A retry closes the record without asking the ledger (it cannot, safely, for such a record) …
    const replay = await create(agent, body);
    expect([replay.status, replay.body.code]).toEqual([400, 'WITHDRAWAL_QR_INVALID']);
    expect((await recordOf(key)).stage).toBe('CLOSED');
    // … while a request that read the record PENDING is still on its way to the ledger, which
    // answers it with the intent: that request is refused too, and the intent does not stay held.
    const service = p.gateway.app.get(IntentCreateService) as unknown as { callLedger(r: PaymentIntentRecord): Promise<unknown> };
    await expect(service.callLedger(pending)).rejects.toMatchObject({ code: 'WITHDRAWAL_QR_INVALID' });
    expect(await ledgerIntentsOf(key)).toEqual([{ id: made.id, status: 'CANCELED' }]);
    expect(await p.balance(gina.accounts.XAF)).toEqual({ balance: 20_000, availableBalance: 20_000, frozenBalance: 0 });
    expect(await recordOf(key)).toMatchObject({ stage: 'CLOSED', ledger_intent_id: null });
  });

  it('same key, another body after a refusal that left no intent: risk judges the new request (403), and a retry of it keeps that decision', async () => {
    const xavier = await p.register('CUSTOMER');
    const yvonne = await p.register('CUSTOMER');
    await Promise.all([p.fund(xavier.accounts.XAF, 20_000), p.fund(yvonne.accounts.XAF, 20_000)]);
    const key = randomUUID();
    // Refused by the limits (below the cash-out minimum): nothing of it is stored (risk judged it, but
    // a create writes its quote, decision and record together, once every check passed).
    const first = await create(agent, { type: 'CASH_OUT', amount: 100, clientPhone: xavier.phone, idempotencyKey: key });
    expect([first.status, first.body.code]).toEqual([422, 'AMOUNT_BELOW_MINIMUM']);

    const blocklist = p.gateway.app.get(BlocklistService);
    const entry = await blocklist.add({ phone: yvonne.phone, list: 'SANCTIONS', reason: 'test', addedBy: 'test' });
    const other = { type: 'CASH_OUT', amount: 5_000, clientPhone: yvonne.phone, idempotencyKey: key };
    const second = await create(agent, other);
    expect([second.status, second.body.code, second.headers.get('x-risk-reason')]).toEqual([403, 'RISK_REJECTED', 'NOT_ALLOWED']);
    expect(await p.balance(yvonne.accounts.XAF)).toMatchObject({ frozenBalance: 0 });

    // A genuine retry of that request is answered by its stored decision, even once the listing is lifted.
    await blocklist.remove(entry.id, { removedBy: 'test', reason: 'done' });
    const retry = await create(agent, other);
    expect([retry.status, retry.body.code]).toEqual([403, 'RISK_REJECTED']);
    expect(retry.headers.get('x-risk-decision-id')).toBe(second.headers.get('x-risk-decision-id'));
    const decisions = await p.sql.query(
      `SELECT outcome FROM orchestrator.risk_decisions WHERE operation_id = $1 AND stage = 'CREATE' ORDER BY created_at`,
      [key],
    );
    expect(decisions.rows.map((r: { outcome: string }) => r.outcome)).toEqual(['REJECT']);
  });
});
