import { randomUUID } from 'node:crypto';
import { PaymentReconciler } from '../../apps/orchestrator/src/intents/payment-reconciler.service';
import type { RunningApp } from '../support/boot';
import { cuttingLedgerProxy } from '../support/cutting-proxy';
import { type Answer, MoneyPlatform, type TestUser, pay, payOk } from './money-platform';

describe('money flow under concurrency, retries and crashes', () => {
  const p = new MoneyPlatform();
  let agent: TestUser;
  let agent2: TestUser;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    await p.start();
    agent = await p.register('AGENT');
    agent2 = await p.register('AGENT');
    alice = await p.register('CUSTOMER', { firstName: 'Alice' });
    bob = await p.register('CUSTOMER', { firstName: 'Bob' });
    await p.fund(alice.accounts.XAF, 200_000);
    await p.fund(agent.accounts.XAF, 500_000);
  });
  afterAll(() => p.stop());

  async function expectClean(): Promise<void> {
    expect(await p.invariants()).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
  }

  async function transactionsOf(intentId: string): Promise<number> {
    const { rows } = await p.sql.query(`SELECT count(*)::int AS n FROM ledger.transactions WHERE intent_id = $1`, [intentId]);
    return rows[0].n;
  }

  async function readyTransfer(amount = 1_000): Promise<string> {
    const created = await p.call('POST', '/api/v1/intents', {
      token: alice.token,
      body: { type: 'TRANSFER', amount, clientPhone: bob.phone, idempotencyKey: randomUUID() },
    });
    expect(created.status).toBe(201);
    const id = created.body.intentId as string;
    const pin = await p.call('POST', `/api/v1/intents/${id}/verify-pin`, { token: alice.token, body: { pin: alice.pin } });
    expect(pin.status).toBe(200);
    return id;
  }

  it('two simultaneous cash-outs, each above half the balance: one 200, one 422 INSUFFICIENT_BALANCE stating no amount to the agent (docs/mobile-api.md "confirm")', async () => {
    const customer = await p.register('CUSTOMER');
    await p.fund(customer.accounts.XAF, 30_000);
    const [qr1, qr2] = await Promise.all(
      [1, 2].map(() => p.call('POST', '/api/v1/withdrawal-qr', { token: customer.token, body: {} }).then((r) => r.body.qrToken as string)),
    );
    const flows = await Promise.all([
      pay(p, agent, { type: 'CASH_OUT', amount: 20_000, qrToken: qr1 }),
      pay(p, agent2, { type: 'CASH_OUT', amount: 20_000, qrToken: qr2 }),
    ]);
    const last = (f: { created: Answer; pin?: Answer; confirmed?: Answer }) => f.confirmed ?? f.pin ?? f.created;
    const outcomes = flows.map(last).sort((a, b) => a.status - b.status);
    expect(outcomes.map((o) => o.status)).toEqual([200, 422]);
    expect(outcomes[1].body.code).toBe('INSUFFICIENT_BALANCE');
    // The agent is not the holder of the debited account: the refusal states no amount.
    expect(outcomes[1].body.message).not.toMatch(/\d/);
    expect(await p.balance(customer.accounts.XAF)).toEqual({ balance: 9_600, availableBalance: 9_600, frozenBalance: 0 });
    await expectClean();
  });

  it('confirm sent 10 times at once: one transaction, ten identical answers', async () => {
    const id = await readyTransfer(2_000);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => p.call('POST', `/api/v1/intents/${id}/confirm`, { token: alice.token })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    for (const a of answers) expect(a.body).toEqual(answers[0].body);
    expect(answers[0].body).toMatchObject({ status: 'SUCCEEDED', amount: 2_000, fees: 50 });
    expect(await transactionsOf(id)).toBe(1);
    // The success is recorded once: two SMS, not twenty.
    const { rows } = await p.sql.query(`SELECT count(*)::int AS n FROM orchestrator.sms_outbox WHERE dedupe_key LIKE $1`, [
      `payment:${id}:%`,
    ]);
    expect(rows[0].n).toBe(2);
    await expectClean();
  });

  it('killed between the ledger commit and its answer: the retried confirm answers SUCCEEDED with the same transaction', async () => {
    const id = await readyTransfer(3_000);
    const crashed = await p
      .call('POST', `/api/v1/intents/${id}/confirm`, { token: alice.token, headers: { 'x-payments-fault': 'crash-after-ledger-commit' } })
      .then(
        () => 'answered',
        () => 'no answer',
      );
    expect(crashed).toBe('no answer');
    // The ledger did commit; the orchestrator recorded nothing and sent nothing.
    const ledgerView = await p.ledgerCall('GET', `/v1/internal/intents/${id}`);
    expect(ledgerView.body.status).toBe('SUCCEEDED');
    const before = await p.sql.query(`SELECT stage, confirm_response FROM orchestrator.payment_intents WHERE ledger_intent_id = $1`, [id]);
    expect(before.rows[0]).toEqual({ stage: 'CREATED', confirm_response: null });

    const retried = await p.call('POST', `/api/v1/intents/${id}/confirm`, { token: alice.token });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({
      status: 'SUCCEEDED',
      transactionId: ledgerView.body.transactionId,
      referenceId: ledgerView.body.referenceId,
    });
    expect(await transactionsOf(id)).toBe(1);
    const sms = await p.sql.query(`SELECT to_phone FROM orchestrator.sms_outbox WHERE dedupe_key LIKE $1 ORDER BY dedupe_key`, [
      `payment:${id}:%`,
    ]);
    expect(sms.rows.map((r) => r.to_phone)).toEqual([bob.phone, alice.phone]);
    await expectClean();
  });

  it('a confirm cut after the ledger commit and never retried: the reconciler records it from the ledger (history, SMS)', async () => {
    const id = await readyTransfer(2_500);
    await p
      .call('POST', `/api/v1/intents/${id}/confirm`, { token: alice.token, headers: { 'x-payments-fault': 'crash-after-ledger-commit' } })
      .catch(() => undefined);
    const ledgerView = await p.ledgerCall('GET', `/v1/internal/intents/${id}`);
    expect(ledgerView.body.status).toBe('SUCCEEDED');
    const history = async () =>
      (await p.call('GET', '/api/v1/transactions', { token: alice.token })).body.items.map((i: { referenceId: string }) => i.referenceId);
    expect(await history()).not.toContain(ledgerView.body.referenceId);

    expect(await p.gateway.app.get(PaymentReconciler).runOnce(0)).toBe(1);
    expect(await history()).toContain(ledgerView.body.referenceId);
    const sms = await p.sql.query(`SELECT count(*)::int AS n FROM orchestrator.sms_outbox WHERE dedupe_key LIKE $1`, [`payment:${id}:%`]);
    expect(sms.rows[0].n).toBe(2);
    expect(await transactionsOf(id)).toBe(1);
    // Nothing left to do; a late confirm from the client gets the same answer.
    expect(await p.gateway.app.get(PaymentReconciler).runOnce(0)).toBe(0);
    const late = await p.call('POST', `/api/v1/intents/${id}/confirm`, { token: alice.token });
    expect(late.body).toMatchObject({ status: 'SUCCEEDED', transactionId: ledgerView.body.transactionId });
  });

  it('an answer lost on the way back from the ledger is retried under the same key: the client gets its one transaction', async () => {
    const proxy = await cuttingLedgerProxy(p.ledger.url, { when: 'after', times: 1 });
    let via: RunningApp | undefined;
    try {
      via = await p.bootGateway({ LEDGER_URL: proxy.url, LEDGER_RETRY_BASE_MS: '20' });
      const id = await readyTransfer(4_000);
      const confirmed = await p.call('POST', `/api/v1/intents/${id}/confirm`, { token: alice.token, via });
      expect(proxy.cut()).toBe(1);
      expect(confirmed.status).toBe(200);
      expect(confirmed.body.status).toBe('SUCCEEDED');
      expect(await transactionsOf(id)).toBe(1);
    } finally {
      await proxy.close();
    }
    await expectClean();
  });

  it('ledger down: 502 UPSTREAM_UNAVAILABLE, nothing half-done, and the same confirm succeeds once it is back', async () => {
    const down = await p.bootGateway({ LEDGER_URL: 'http://127.0.0.1:9', LEDGER_RETRY_BASE_MS: '10' });
    const createDown = await p.call('POST', '/api/v1/intents', {
      token: alice.token,
      via: down,
      body: { type: 'TRANSFER', amount: 1_000, clientPhone: bob.phone, idempotencyKey: randomUUID() },
    });
    expect([createDown.status, createDown.body.code]).toEqual([502, 'UPSTREAM_UNAVAILABLE']);

    const id = await readyTransfer(5_000);
    const before = await p.balance(alice.accounts.XAF);
    const confirmDown = await p.call('POST', `/api/v1/intents/${id}/confirm`, { token: alice.token, via: down });
    expect([confirmDown.status, confirmDown.body.code]).toEqual([502, 'UPSTREAM_UNAVAILABLE']);
    expect(await p.balance(alice.accounts.XAF)).toEqual(before);
    expect(await transactionsOf(id)).toBe(0);

    const confirmed = await p.call('POST', `/api/v1/intents/${id}/confirm`, { token: alice.token });
    expect(confirmed.status).toBe(200);
    expect(await transactionsOf(id)).toBe(1);
    await expectClean();
  });

  it('a confirm whose answer was lost holds its room until the intent can no longer execute: a payment meanwhile cannot use it, and the retry stays within the daily limit', async () => {
    // Its own customers: TIER_1, 200 000 a day; the other cases leave alice's usage as it is.
    const carol = await p.register('CUSTOMER', { firstName: 'Carol' });
    const dave = await p.register('CUSTOMER', { firstName: 'Dave' });
    await p.fund(carol.accounts.XAF, 400_000);
    // Dave is known to carol first (a first payment near the ceiling to a new recipient is refused by risk).
    await payOk(p, carol, { type: 'TRANSFER', amount: 100, clientPhone: dave.phone });
    const created = await p.call('POST', '/api/v1/intents', {
      token: carol.token,
      body: { type: 'TRANSFER', amount: 100_000, clientPhone: dave.phone, idempotencyKey: randomUUID() },
    });
    expect(created.status).toBe(201);
    const id = created.body.intentId as string;
    expect((await p.call('POST', `/api/v1/intents/${id}/verify-pin`, { token: carol.token, body: { pin: carol.pin } })).status).toBe(200);
    // The move to SUCCEEDED never reaches the ledger, and the orchestrator cannot know it: the hold is kept.
    const proxy = await cuttingLedgerProxy(p.ledger.url, { when: 'before' });
    const cut = await p.bootGateway({ LEDGER_URL: proxy.url, LEDGER_RETRY_BASE_MS: '10' });
    const lost = await p.call('POST', `/api/v1/intents/${id}/confirm`, { token: carol.token, via: cut });
    expect([lost.status, lost.body.code]).toEqual([502, 'UPSTREAM_UNAVAILABLE']);
    await proxy.close();
    const hold = async () =>
      (
        await p.sql.query(
          `SELECT u.status, u.amount::int, u.held_until >= r.expires_at + interval '300 seconds' AS past_expiry
             FROM orchestrator.limit_usage u JOIN orchestrator.payment_intents r ON r.idempotency_key::text = u.operation_id::text
            WHERE r.ledger_intent_id = $1`,
          [id],
        )
      ).rows;
    expect(await hold()).toEqual([{ status: 'HELD', amount: 100_000, past_expiry: true }]);

    // 301 s later (past holdSeconds), the intent still open for five minutes: the hold still counts.
    await p.sql.query(`UPDATE orchestrator.limit_usage SET held_until = held_until - interval '301 seconds' WHERE subject_id = $1`, [
      carol.userId,
    ]);
    await p.sql.query(`UPDATE ledger.transaction_intents SET expires_at = expires_at - interval '301 seconds' WHERE id = $1`, [id]);
    await p.sql.query(
      `UPDATE orchestrator.payment_intents SET expires_at = expires_at - interval '301 seconds' WHERE ledger_intent_id = $1`,
      [id],
    );
    await payOk(p, carol, { type: 'TRANSFER', amount: 100, clientPhone: dave.phone });
    // 100 200 used or held: another 100 000 passes the day's 200 000, refused at create.
    const over = await pay(p, carol, { type: 'TRANSFER', amount: 100_000, clientPhone: dave.phone });
    expect([over.created.status, over.created.body.code]).toEqual([422, 'LIMIT_DAILY_EXCEEDED']);

    // The retry executes the payment the customer consented to, within the day's 200 000.
    const retried = await p.call('POST', `/api/v1/intents/${id}/confirm`, { token: carol.token });
    expect(retried.status).toBe(200);
    expect(await transactionsOf(id)).toBe(1);
    const { rows } = await p.sql.query(
      `SELECT coalesce(sum(amount), 0)::int AS used FROM orchestrator.limit_usage WHERE subject_id = $1 AND status = 'SETTLED'`,
      [carol.userId],
    );
    expect(rows[0].used).toBe(100_200);
    await expectClean();
  });

  it('confirm after the intent expired: 400 INTENT_EXPIRED, the hold stays until the sweeper releases it', async () => {
    const id = await readyTransfer(1_500);
    await p.sql.query(`UPDATE ledger.transaction_intents SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    await p.sql.query(`UPDATE orchestrator.payment_intents SET expires_at = now() - interval '1 second' WHERE ledger_intent_id = $1`, [id]);
    const res = await p.call('POST', `/api/v1/intents/${id}/confirm`, { token: alice.token });
    expect([res.status, res.body.code]).toEqual([400, 'INTENT_EXPIRED']);
    expect(await transactionsOf(id)).toBe(0);
  });
});
