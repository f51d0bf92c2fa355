import { randomUUID } from 'node:crypto';
import { BlocklistService } from '../../apps/orchestrator/src/risk/blocklist.service';
import { MoneyPlatform, type TestUser } from './money-platform';

/**
 * What a create retried under the same idempotencyKey may and may not reuse, through the gateway:
 * - a withdrawal-code cash-out the ledger refused is replayed without OTP only while the code is
 *   within its lifetime; once it expired, the replay is refused and the record closed;
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
    await p.sql.query(
      `UPDATE orchestrator.withdrawal_qrs SET created_at = created_at - interval '3 days', expires_at = expires_at - interval '3 days'
        WHERE customer_user_id = $1`,
      [bob.userId],
    );
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
      `SELECT status, ledger_intent_id, failure_reason FROM orchestrator.payment_intents WHERE idempotency_key = $1`,
      [body.idempotencyKey],
    );
    expect(record.rows).toEqual([{ status: 'FAILED', ledger_intent_id: null, failure_reason: expect.stringContaining('expired') }]);
    // The key still belongs to that request: another body under it is a conflict, not a new operation.
    const other = await create(agent, { ...body, amount: 4_000 });
    expect([other.status, other.body.code]).toEqual([422, 'IDEMPOTENCY_KEY_CONFLICT']);
  });

  it('in the database: past PENDING only FAILED may lack a ledger intent, and a closed record cannot be revived', async () => {
    const carol = await p.register('CUSTOMER');
    await p.fund(carol.accounts.XAF, 1_000);
    const body = await refusedQrCashOut(carol, 5_000);
    const key = body.idempotencyKey;
    await expect(
      p.sql.query(`UPDATE orchestrator.payment_intents SET status = 'CREATED' WHERE idempotency_key = $1`, [key]),
    ).rejects.toThrow(/payment_intents_ledger_intent_check/);
    await p.sql.query(
      `UPDATE orchestrator.withdrawal_qrs SET created_at = created_at - interval '1 day', expires_at = expires_at - interval '1 day'
        WHERE customer_user_id = $1`,
      [carol.userId],
    );
    expect((await create(agent, body)).status).toBe(400);
    await expect(
      p.sql.query(`UPDATE orchestrator.payment_intents SET status = 'PENDING' WHERE idempotency_key = $1`, [key]),
    ).rejects.toThrow(/final/);
  });

  it('same key, another body after a refusal that left no intent: risk judges the new request (403), and a retry of it keeps that decision', async () => {
    const xavier = await p.register('CUSTOMER');
    const yvonne = await p.register('CUSTOMER');
    await Promise.all([p.fund(xavier.accounts.XAF, 20_000), p.fund(yvonne.accounts.XAF, 20_000)]);
    const key = randomUUID();
    // Refused by the limits (below the cash-out minimum); risk accepted this request meanwhile.
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
    expect(decisions.rows.map((r: { outcome: string }) => r.outcome)).toEqual(['ACCEPT', 'REJECT']);
  });
});
