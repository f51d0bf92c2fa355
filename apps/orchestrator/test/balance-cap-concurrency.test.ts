import { randomUUID } from 'node:crypto';
import { type Answer, MoneyPlatform, type TestUser } from '../../../test/e2e/money-platform';
import type { RunningApp } from '../../../test/support/boot';
import { cuttingLedgerProxy } from '../../../test/support/cutting-proxy';

/**
 * The balance cap of the credited customer (TIER_1: 500 000 XAF), through the real gateway, auth
 * and ledger. The orchestrator sends the cap with the creation and the confirm; the ledger checks it
 * where the balance is, under the account's lock. Each credit passes the cap alone; together only
 * as many as fit may pass, and a credit counts once it executes, never before, never twice.
 */
describe('limits: balance cap of the credited customer under concurrent confirms', () => {
  const p = new MoneyPlatform();

  beforeAll(() => p.start());
  afterAll(() => p.stop());

  /** Created and PIN-verified: ready to confirm. Answers the intent id and the operation id (idempotencyKey). */
  async function ready(initiator: TestUser, body: Record<string, unknown>): Promise<{ id: string; operationId: string }> {
    const operationId = randomUUID();
    const created = await p.call('POST', '/api/v1/intents', { token: initiator.token, body: { idempotencyKey: operationId, ...body } });
    expect(created.status).toBe(201);
    const id = created.body.intentId as string;
    const pin = await p.call('POST', `/api/v1/intents/${id}/verify-pin`, { token: initiator.token, body: { pin: initiator.pin } });
    expect(pin.status).toBe(200);
    return { id, operationId };
  }

  const confirm = (initiator: TestUser, id: string, options: { via?: RunningApp; headers?: Record<string, string> } = {}) =>
    p.call('POST', `/api/v1/intents/${id}/confirm`, { token: initiator.token, ...options });

  async function customer(balance: number): Promise<TestUser> {
    const user = await p.register('CUSTOMER');
    if (balance > 0) await p.fund(user.accounts.XAF, balance);
    return user;
  }

  async function usageOf(operationIds: string[]): Promise<Array<{ operation_id: string; subject_kind: string; status: string }>> {
    const { rows } = await p.sql.query(
      `SELECT operation_id, subject_kind, status FROM orchestrator.limit_usage WHERE operation_id = ANY($1) ORDER BY operation_id, subject_kind`,
      [operationIds],
    );
    return rows;
  }

  async function heldFor(userId: string): Promise<number> {
    const { rows } = await p.sql.query(
      `SELECT count(*)::int AS n FROM orchestrator.limit_usage WHERE subject_id = $1 AND status = 'HELD'`,
      [userId],
    );
    return rows[0].n;
  }

  async function expectClean(): Promise<void> {
    expect(await p.invariants()).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
  }

  it('eight credits of 20 000 to a customer at 400 000, confirmed at once: five pass (500 000 exactly), three are refused', async () => {
    const bob = await customer(400_000);
    // Six different senders (20 000 + the 1 % fee each) and two agents doing cash-ins.
    const senders = await Promise.all(Array.from({ length: 6 }, () => customer(30_000)));
    const agents = await Promise.all(
      [1, 2].map(async () => {
        const agent = await p.register('AGENT');
        await p.fund(agent.accounts.XAF, 100_000);
        return agent;
      }),
    );
    const credits: Array<{ initiator: TestUser; account: string; id: string; operationId: string }> = [];
    for (const sender of senders) {
      credits.push({
        initiator: sender,
        account: sender.accounts.XAF,
        ...(await ready(sender, { type: 'TRANSFER', amount: 20_000, clientPhone: bob.phone })),
      });
    }
    for (const agent of agents) {
      credits.push({
        initiator: agent,
        account: agent.accounts.XAF,
        ...(await ready(agent, { type: 'CASH_IN', amount: 20_000, clientPhone: bob.phone })),
      });
    }
    const before = await Promise.all(credits.map((c) => p.balance(c.account)));

    const answers = await Promise.all(credits.map((c) => confirm(c.initiator, c.id)));

    const outcome = (a: Answer) => (a.status === 200 ? `200 ${a.body.status}` : `${a.status} ${a.body.code}`);
    expect(answers.map(outcome).sort()).toEqual([...Array(5).fill('200 SUCCEEDED'), ...Array(3).fill('422 LIMIT_BALANCE_CAP_EXCEEDED')]);
    // The senders are not the credited customer: the refusal does not tell them the room left.
    for (const refused of answers.filter((a) => a.status === 422)) expect(refused.headers.get('x-limit-allowed')).toBeNull();
    expect((await p.balance(bob.accounts.XAF)).balance).toBe(500_000);

    // Money: the accepted senders paid amount + fee, the refused ones paid nothing.
    const after = await Promise.all(credits.map((c) => p.balance(c.account)));
    answers.forEach((answer, i) => {
      const paid = answer.status === 200 ? 20_000 + (answer.body.fees as number) : 0;
      expect(after[i].balance).toBe(before[i].balance - paid);
    });
    // Limits: an accepted credit's payer (or agent) usage is settled; a refused one's hold went
    // back when the ledger refused; nothing is ever held for bob, the credited customer.
    const rows = await usageOf(credits.map((c) => c.operationId));
    for (const [i, c] of credits.entries()) {
      const mine = rows.filter((r) => r.operation_id === c.operationId);
      const subject = c.initiator.role === 'AGENT' ? 'AGENT' : 'CUSTOMER';
      expect(mine.map((r) => `${r.subject_kind} ${r.status}`)).toEqual([
        `${subject} ${answers[i].status === 200 ? 'SETTLED' : 'RELEASED'}`,
      ]);
    }
    expect(await heldFor(bob.userId)).toBe(0);
    await expectClean();
  });

  it('a credit already above the cap at creation is refused there, with no amount stated and nothing held', async () => {
    const lena = await customer(495_000);
    const mike = await customer(30_000);
    const created = await p.call('POST', '/api/v1/intents', {
      token: mike.token,
      body: { idempotencyKey: randomUUID(), type: 'TRANSFER', amount: 10_000, clientPhone: lena.phone },
    });
    expect([created.status, created.body.code, created.headers.get('x-limit-allowed')]).toEqual([422, 'LIMIT_BALANCE_CAP_EXCEEDED', null]);
    expect(await p.balance(mike.accounts.XAF)).toEqual({ balance: 30_000, availableBalance: 30_000, frozenBalance: 0 });
    await expectClean();
  });

  it('a confirm whose ledger call never got through takes no room; retried after another credit filled it, the ledger refuses it', async () => {
    const proxy = await cuttingLedgerProxy(p.ledger.url, { when: 'before' });
    try {
      const via = await p.bootGateway({ LEDGER_URL: proxy.url, LEDGER_RETRY_BASE_MS: '10' });
      const carol = await customer(480_000);
      const [dan, erin] = await Promise.all([customer(30_000), customer(30_000)]);
      const first = await ready(dan, { type: 'TRANSFER', amount: 20_000, clientPhone: carol.phone });
      const second = await ready(erin, { type: 'TRANSFER', amount: 1_000, clientPhone: carol.phone });

      // The ledger never receives the move to SUCCEEDED: nothing executed, nothing counted.
      const unanswered = await confirm(dan, first.id, { via });
      expect(unanswered.status).toBeGreaterThanOrEqual(500);
      expect(proxy.cut()).toBeGreaterThan(0);
      expect((await p.ledgerCall('GET', `/v1/internal/intents/${first.id}`)).body.status).toBe('PIN_VERIFIED');

      // 480 000 + 1 000 fits.
      expect((await confirm(erin, second.id)).body.status).toBe('SUCCEEDED');
      expect((await p.balance(carol.accounts.XAF)).balance).toBe(481_000);

      // The first confirm retried (same request, same key): 501 000 would pass the cap.
      const refused = await confirm(dan, first.id);
      expect([refused.status, refused.body.code, refused.headers.get('x-limit-allowed')]).toEqual([
        422,
        'LIMIT_BALANCE_CAP_EXCEEDED',
        null,
      ]);
      expect((await p.balance(carol.accounts.XAF)).balance).toBe(481_000);
      expect((await p.ledgerCall('GET', `/v1/internal/intents/${first.id}`)).body.status).toBe('PIN_VERIFIED');
      expect(await heldFor(dan.userId)).toBe(0);
    } finally {
      await proxy.close();
    }
    await expectClean();
  });

  it('a credit the ledger committed but the orchestrator has not recorded yet is counted once, not twice', async () => {
    const frank = await customer(460_000);
    const [gina, hugo] = await Promise.all([customer(30_000), customer(30_000)]);
    const first = await ready(gina, { type: 'TRANSFER', amount: 20_000, clientPhone: frank.phone });
    const second = await ready(hugo, { type: 'TRANSFER', amount: 20_000, clientPhone: frank.phone });

    // The gateway "dies" right after the ledger committed: nothing recorded here yet.
    await confirm(gina, first.id, { headers: { 'x-payments-fault': 'crash-after-ledger-commit' } }).catch(() => undefined);
    expect((await p.ledgerCall('GET', `/v1/internal/intents/${first.id}`)).body.status).toBe('SUCCEEDED');
    expect((await p.balance(frank.accounts.XAF)).balance).toBe(480_000);
    expect((await usageOf([first.operationId])).map((r) => `${r.subject_kind} ${r.status}`)).toEqual(['CUSTOMER HELD']);

    // 480 000 in the ledger already holds the first credit: 20 000 more reaches the cap exactly.
    const accepted = await confirm(hugo, second.id);
    expect([accepted.status, accepted.body.status]).toEqual([200, 'SUCCEEDED']);
    expect((await p.balance(frank.accounts.XAF)).balance).toBe(500_000);

    // The first payment is then recorded as usual.
    expect((await confirm(gina, first.id)).body.status).toBe('SUCCEEDED');
    expect((await usageOf([first.operationId])).map((r) => `${r.subject_kind} ${r.status}`)).toEqual(['CUSTOMER SETTLED']);
    expect(await heldFor(frank.userId)).toBe(0);
    await expectClean();
  });

  it('a credit whose intent the ledger ended (cancelled, failed, expired) takes no room', async () => {
    const proxy = await cuttingLedgerProxy(p.ledger.url, { when: 'before' });
    try {
      const via = await p.bootGateway({ LEDGER_URL: proxy.url, LEDGER_RETRY_BASE_MS: '10' });
      const ines = await customer(480_000);
      const [jack, kate] = await Promise.all([customer(30_000), customer(30_000)]);
      const first = await ready(jack, { type: 'TRANSFER', amount: 20_000, clientPhone: ines.phone });
      const second = await ready(kate, { type: 'TRANSFER', amount: 20_000, clientPhone: ines.phone });
      expect((await confirm(jack, first.id, { via })).status).toBeGreaterThanOrEqual(500);

      // The ledger ends the first intent out of the orchestrator's sight (as its expiry sweeper does).
      const ended = await p.ledgerCall('POST', `/v1/internal/intents/${first.id}/transition`, {
        toStatus: 'CANCELED',
        actor: { id: 'test' },
        reason: 'ended in the ledger',
      });
      expect(ended.body.status).toBe('CANCELED');

      const accepted = await confirm(kate, second.id);
      expect([accepted.status, accepted.body.status]).toEqual([200, 'SUCCEEDED']);
      expect((await p.balance(ines.accounts.XAF)).balance).toBe(500_000);
      // The sender's own hold stays until it lapses or the completion sweep sees the ledger's end.
      expect((await usageOf([first.operationId])).map((r) => `${r.subject_kind} ${r.status}`)).toEqual(['CUSTOMER HELD']);
    } finally {
      await proxy.close();
    }
    await expectClean();
  });
});
