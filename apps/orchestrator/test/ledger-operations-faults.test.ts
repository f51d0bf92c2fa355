import { randomUUID } from 'node:crypto';
import { type Answer, type Json, MoneyPlatform, newPhone, payOk } from '../../../test/e2e/money-platform';
import { callerKey } from '../../../test/support/test-env';
import { ApprovalSweep } from '../src/approvals/approval-sweep.service';

const LEDGER = '/api/backoffice/ledger';
const APPROVALS = '/api/backoffice/approvals';

/**
 * The ledger actions of the maker-checker engine when something goes wrong in between: an approval
 * whose answer is lost, a submission never stored, the ledger down at a rejection, the ledger's own
 * compliance limit, payloads the generic route must not trust, duplicates reworded. Real platform,
 * real handlers; the sweep is run by the tests (runOnce). The ledger's compliance limit is lowered
 * to 10 000 so that its own judgement differs from the engine's (APPROVAL_COMPLIANCE_LIMIT 1 000 000).
 */
describe('backoffice ledger operations: faults between the engine and the ledger', () => {
  const p = new MoneyPlatform();
  let admin: string;
  let officer: { token: string; userId: string };
  let support: { token: string; userId: string };

  async function staff(role: 'COMPLIANCE' | 'SUPPORT', firstName: string): Promise<{ token: string; userId: string; phone: string }> {
    const phone = newPhone();
    const created = await p.call('POST', '/api/orchestrator/admin/staff', {
      token: admin,
      body: { phone, pin: '2580', firstName, lastName: 'Test', countryCode: 'CM', role },
    });
    if (created.status !== 201) throw new Error(`staff ${role} ${created.status} ${JSON.stringify(created.body)}`);
    return { token: await p.login(phone, '2580'), userId: created.body.userId as string, phone };
  }

  beforeAll(async () => {
    await p.start({
      // staff creation and role changes one-person here (set-up only: their four eyes are
      // backoffice-people.test.ts's), so that the administrator makes officers and a second administrator
      orchestratorEnv: {
        APPROVAL_SWEEP_INTERVAL_MS: '0',
        APPROVAL_EXECUTING_GRACE_SECONDS: '1',
        APPROVALS_ONE_PERSON_ACTIONS: 'STAFF_CREATE,STAFF_ROLE_CHANGE',
      },
      ledgerEnv: { LEDGER_CORRECTION_COMPLIANCE_LIMIT: '10000' },
    });
    admin = await p.adminToken();
    officer = await staff('COMPLIANCE', 'Clara');
    support = await staff('SUPPORT', 'Sam');
  }, 120_000);
  afterAll(() => p.stop());

  const sweep = () => p.gateway.app.get(ApprovalSweep).runOnce();
  const approve = (id: string, token: string): Promise<Answer> =>
    p.call('POST', `${APPROVALS}/${id}/approve`, { token, body: { reason: 'Checked against the request form' } });
  const stored = async (id: string): Promise<Json> =>
    (await p.sql.query(`SELECT status, failure_code, released_at, result FROM orchestrator.approval_requests WHERE id = $1`, [id])).rows[0];
  const correctionOf = async (requestId: string): Promise<Json> =>
    (await p.sql.query(`SELECT id, status, decision_reason FROM ledger.corrections WHERE idempotency_key = $1`, [requestId])).rows[0];
  /** A ledger call as the orchestrator makes it, with an operator's token (the engine's approval, its answer then lost). */
  const ledgerAs = async (method: string, path: string, token: string, body?: unknown): Promise<Answer> => {
    const res = await fetch(`${p.ledger.url}${path}`, {
      method,
      headers: { 'x-service-key': callerKey('orchestrator'), authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: await res.json() };
  };
  /** The request claimed by the officer as an approval does (EXECUTING), its execution then lost: past the grace period. */
  const claimLost = (id: string) =>
    p.sql.query(
      `UPDATE orchestrator.approval_requests SET status = 'EXECUTING', checker_id = $2, checker_role = 'COMPLIANCE', decided_at = now(),
              claimed_at = now() - interval '10 seconds' WHERE id = $1`,
      [id, officer.userId],
    );
  const fundFloat = (agentId: string, amount: number, reason: string) =>
    p.call('POST', `${LEDGER}/agents/${agentId}/float-fundings`, { token: admin, body: { amount, currency: 'XAF', reason } });

  it('an approval executed by the ledger whose answer was lost settles EXECUTED on the sweep; the float moved once', async () => {
    const agent = await p.register('AGENT');
    const before = (await p.balance(agent.accounts.XAF)).balance;
    const submitted = await fundFloat(agent.agentId!, 5_000, 'Float top-up, answer lost');
    expect(submitted.status).toBe(202);
    const correction = await correctionOf(submitted.body.id);
    await claimLost(submitted.body.id);
    const approved = await ledgerAs('POST', `/v1/internal/corrections/${correction.id}/approve`, officer.token, { reason: 'approved' });
    expect([approved.status, approved.body.status]).toEqual([200, 'EXECUTED']);

    expect(await sweep()).toMatchObject({ ran: true, resumed: 1 });
    expect(await stored(submitted.body.id)).toMatchObject({
      status: 'EXECUTED',
      result: { correctionId: correction.id, transactionId: approved.body.transactionId },
    });
    expect((await p.balance(agent.accounts.XAF)).balance).toBe(before + 5_000);
    expect(await sweep()).toMatchObject({ resumed: 0 });
    expect((await p.balance(agent.accounts.XAF)).balance).toBe(before + 5_000);
  });

  it('an approval cut before the ledger executed it is FAILED EXECUTION_INTERRUPTED, the correction expired, and it can be submitted again', async () => {
    const agent = await p.register('AGENT');
    const before = (await p.balance(agent.accounts.XAF)).balance;
    const submitted = await fundFloat(agent.agentId!, 6_000, 'Float top-up, cut');
    await claimLost(submitted.body.id);
    expect(await sweep()).toMatchObject({ resumed: 1 });
    expect(await stored(submitted.body.id)).toMatchObject({ status: 'FAILED', failure_code: 'EXECUTION_INTERRUPTED' });
    expect((await stored(submitted.body.id)).released_at).not.toBeNull();
    expect((await correctionOf(submitted.body.id)).status).toBe('EXPIRED');
    expect((await p.balance(agent.accounts.XAF)).balance).toBe(before);
    const again = await fundFloat(agent.agentId!, 6_000, 'Float top-up, cut');
    expect([again.status, again.body.status]).toEqual([202, 'PENDING']);
  });

  it('a hold placement cut before the ledger placed it is FAILED EXECUTION_INTERRUPTED; nothing is frozen', async () => {
    const customer = await p.register('CUSTOMER');
    await p.fund(customer.accounts.XAF, 1_000);
    const placed = await p.call('POST', `${LEDGER}/holds`, {
      token: admin,
      body: { accountId: customer.accounts.XAF, amount: 400, reason: 'Hold cut short' },
    });
    await claimLost(placed.body.id);
    expect(await sweep()).toMatchObject({ resumed: 1 });
    expect(await stored(placed.body.id)).toMatchObject({ status: 'FAILED', failure_code: 'EXECUTION_INTERRUPTED' });
    expect(await p.balance(customer.accounts.XAF)).toEqual({ balance: 1_000, availableBalance: 1_000, frozenBalance: 0 });
  });

  it('a reversal submitted at the ledger for a request never stored (a crash) is expired by the sweep; the payment can be reversed again', async () => {
    const payer = await p.register('CUSTOMER');
    const payee = await p.register('CUSTOMER');
    await p.fund(payer.accounts.XAF, 20_000);
    const confirmed = await payOk(p, payer, { type: 'TRANSFER', amount: 3_000, clientPhone: payee.phone });
    // the orchestrator wrote its mark and reached the ledger with the request id, then died before storing the request
    const lost = randomUUID();
    await p.sql.query(
      `INSERT INTO orchestrator.approval_preparations (request_id, action, payload, created_at) VALUES ($1, 'LEDGER_REVERSAL', $2, now() - interval '1 minute')`,
      [lost, JSON.stringify({ referenceId: confirmed.body.referenceId, reason: 'Crashed submission' })],
    );
    const reserved = await ledgerAs('POST', '/v1/internal/corrections', admin, {
      idempotencyKey: lost,
      kind: 'REVERSAL',
      referenceId: confirmed.body.referenceId,
      reason: 'Crashed submission',
    });
    expect(reserved.status).toBe(201);
    const blocked = await p.call('POST', `${LEDGER}/corrections`, {
      token: admin,
      body: { kind: 'REVERSAL', referenceId: confirmed.body.referenceId, reason: 'After the crash' },
    });
    expect([blocked.status, blocked.body]).toEqual([409, expect.objectContaining({ code: 'REVERSAL_ALREADY_REQUESTED' })]);

    expect(await sweep()).toMatchObject({ abandoned: 1 });
    expect((await correctionOf(lost)).status).toBe('EXPIRED');
    expect(await p.sql.query(`SELECT 1 FROM orchestrator.approval_preparations WHERE request_id = $1`, [lost])).toMatchObject({
      rowCount: 0,
    });
    const again = await p.call('POST', `${LEDGER}/corrections`, {
      token: admin,
      body: { kind: 'REVERSAL', referenceId: confirmed.body.referenceId, reason: 'After the crash' },
    });
    expect([again.status, again.body.status]).toEqual([202, 'PENDING']);
    // described from what the ledger found: the transaction's amount
    expect(again.body.amount).toEqual({ value: 3_000, currency: 'XAF' });
  });

  it('the same float funding, correction or hold reworded is still a duplicate', async () => {
    const agent = await p.register('AGENT');
    const first = await fundFloat(agent.agentId!, 7_000, 'Top-up for the week');
    expect([first.status, first.body.message]).toEqual([202, undefined]);
    const reworded = await fundFloat(agent.agentId!, 7_000, 'Top-up for this week');
    expect([reworded.status, reworded.body.code]).toEqual([409, 'APPROVAL_DUPLICATE_PENDING']);
    expect(reworded.body.message).toContain(first.body.id);

    const customer = await p.register('CUSTOMER');
    await p.fund(customer.accounts.XAF, 1_000);
    for (const [path, body] of [
      [`${LEDGER}/corrections`, { accountId: customer.accounts.XAF, direction: 'CREDIT', amount: 300, currency: 'XAF' }],
      [`${LEDGER}/holds`, { accountId: customer.accounts.XAF, amount: 300 }],
    ] as const) {
      expect((await p.call('POST', path, { token: admin, body: { ...body, reason: 'First words' } })).status).toBe(202);
      const again = await p.call('POST', path, { token: admin, body: { ...body, reason: 'Other words' } });
      expect([again.status, again.body.code]).toEqual([409, 'APPROVAL_DUPLICATE_PENDING']);
    }
    expect(await p.sql.query(`SELECT 1 FROM ledger.corrections WHERE account_id = $1`, [customer.accounts.XAF])).toMatchObject({
      rowCount: 1,
    });
  });

  it('identical float fundings sent at once: one request, and no other correction left pending at the ledger', async () => {
    const agent = await p.register('AGENT');
    const answers = await Promise.all([1, 2, 3, 4].map((n) => fundFloat(agent.agentId!, 2_500, `Simultaneous top-up ${n}`)));
    expect(answers.filter((a) => a.status === 202)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409 && a.body.code === 'APPROVAL_DUPLICATE_PENDING')).toHaveLength(3);
    const corrections = await p.sql.query(`SELECT status FROM ledger.corrections WHERE account_id = $1`, [agent.accounts.XAF]);
    expect(corrections.rows.filter((c: Json) => c.status === 'PENDING_APPROVAL')).toHaveLength(1);
    expect(corrections.rows.every((c: Json) => ['PENDING_APPROVAL', 'EXPIRED'].includes(c.status))).toBe(true);
    expect(await p.sql.query(`SELECT 1 FROM orchestrator.approval_preparations`)).toMatchObject({ rowCount: 0 });
  });

  it('a rejection while the ledger is down is retried by the sweep: the correction does not stay approvable', async () => {
    const down = await p.bootGateway({ LEDGER_URL: 'http://127.0.0.1:9', APPROVAL_SWEEP_INTERVAL_MS: '0' });
    const customer = await p.register('CUSTOMER');
    const submitted = await p.call('POST', `${LEDGER}/corrections`, {
      token: admin,
      body: { accountId: customer.accounts.XAF, direction: 'CREDIT', amount: 800, reason: 'Rejected while the ledger is down' },
    });
    const rejected = await p.call('POST', `${APPROVALS}/${submitted.body.id}/reject`, {
      token: officer.token,
      body: { reason: 'No evidence' },
      via: down,
    });
    expect([rejected.status, rejected.body.status]).toEqual([200, 'REJECTED']);
    expect((await correctionOf(submitted.body.id)).status).toBe('PENDING_APPROVAL');
    expect((await stored(submitted.body.id)).released_at).toBeNull();

    expect(await sweep()).toMatchObject({ released: 1 });
    expect((await correctionOf(submitted.body.id)).status).toBe('EXPIRED');
    expect((await stored(submitted.body.id)).released_at).not.toBeNull();
    expect((await p.balance(customer.accounts.XAF)).balance).toBe(0);
  });

  it("above the ledger's own compliance limit only the compliance officer approves; the administrator's refusal leaves it pending", async () => {
    const agent = await p.register('AGENT');
    const before = (await p.balance(agent.accounts.XAF)).balance;
    // the officer asks, the administrator checks: 20 000 is under the engine's limit but over the ledger's
    const submitted = await p.call('POST', `${LEDGER}/agents/${agent.agentId}/float-fundings`, {
      token: officer.token,
      body: { amount: 20_000, currency: 'XAF', reason: 'Float above the ledger limit' },
    });
    expect(submitted.status).toBe(202);
    const detail = await p.call('GET', `${APPROVALS}/${submitted.body.id}`, { token: admin });
    expect(detail.body.viewer).toEqual({ canDecide: false, reasonIfNot: 'APPROVAL_COMPLIANCE_REQUIRED' });
    const refused = await approve(submitted.body.id, admin);
    expect([refused.status, refused.body.code]).toEqual([403, 'APPROVAL_COMPLIANCE_REQUIRED']);
    expect((await stored(submitted.body.id)).status).toBe('PENDING');
    expect((await correctionOf(submitted.body.id)).status).toBe('PENDING_APPROVAL');
    expect((await p.balance(agent.accounts.XAF)).balance).toBe(before);

    const second = await staff('COMPLIANCE', 'Chloe');
    const approved = await approve(submitted.body.id, second.token);
    expect([approved.status, approved.body.status]).toEqual([200, 'EXECUTED']);
    expect((await p.balance(agent.accounts.XAF)).balance).toBe(before + 20_000);
  });

  it('the generic route cannot understate a hold release nor name a currency the account does not hold', async () => {
    const customer = await p.register('CUSTOMER');
    await p.fund(customer.accounts.XAF, 9_000);
    const placed = await p.call('POST', `${LEDGER}/holds`, {
      token: admin,
      body: { accountId: customer.accounts.XAF, amount: 5_000, reason: 'Hold for the generic route' },
    });
    const holdId = (await approve(placed.body.id, officer.token)).body.result.holdId as string;

    const generic = (action: string, payload: Json) =>
      p.call('POST', APPROVALS, { token: admin, body: { action, payload, reason: 'Generic route' } });
    const understated = await generic('HOLD_RELEASE', {
      holdId,
      accountId: customer.accounts.XAF,
      amount: 1,
      currency: 'XAF',
      reason: 'Only one franc, surely',
    });
    expect([understated.status, understated.body.code]).toEqual([422, 'HOLD_MISMATCH']);
    const wrongCurrency = await generic('LEDGER_CORRECTION', {
      accountId: customer.accounts.XAF,
      direction: 'CREDIT',
      amount: 100,
      currency: 'XOF',
      reason: 'Wrong currency',
    });
    expect([wrongCurrency.status, wrongCurrency.body.code]).toEqual([400, 'CURRENCY_MISMATCH']);
    const wrongHoldCurrency = await generic('HOLD_PLACE', {
      accountId: customer.accounts.XAF,
      amount: 100,
      currency: 'XOF',
      reason: 'Wrong currency',
    });
    expect([wrongHoldCurrency.status, wrongHoldCurrency.body.code]).toEqual([400, 'CURRENCY_MISMATCH']);
    expect(await p.sql.query(`SELECT 1 FROM orchestrator.approval_preparations`)).toMatchObject({ rowCount: 0 });

    const exact = await generic('HOLD_RELEASE', {
      holdId,
      accountId: customer.accounts.XAF,
      amount: 5_000,
      currency: 'XAF',
      reason: 'Case closed',
    });
    expect([exact.status, exact.body.amount]).toEqual([202, { value: 5_000, currency: 'XAF' }]);
  });

  it("support sees the holds on a person's 360 view (the ledger lets SUPPORT read holds)", async () => {
    const customer = await p.register('CUSTOMER');
    await p.fund(customer.accounts.XAF, 2_000);
    const placed = await p.call('POST', `${LEDGER}/holds`, {
      token: admin,
      body: { accountId: customer.accounts.XAF, amount: 700, reason: 'Visible to support' },
    });
    expect((await approve(placed.body.id, officer.token)).body.status).toBe('EXECUTED');
    const view = await p.call('GET', `/api/backoffice/people/${customer.userId}`, { token: support.token });
    expect(view.status).toBe(200);
    expect(view.body.holds).toEqual({
      unavailable: null,
      items: [expect.objectContaining({ accountId: customer.accounts.XAF, amount: 700, status: 'ACTIVE' })],
    });
  });

  it('a staff member never decides the reset of their own second factor: refused before claiming, the request stays pending', async () => {
    const adam = await staff('COMPLIANCE', 'Adam');
    const promoted = await p.call('PUT', `/api/orchestrator/admin/users/${adam.userId}/role`, { token: admin, body: { role: 'ADMIN' } });
    expect(promoted.status).toBe(200);
    const other = { userId: adam.userId, token: await p.login(adam.phone, '2580') };
    const submitted = await p.call('POST', APPROVALS, {
      token: admin,
      body: { action: 'STAFF_TOTP_RESET', payload: { userId: other.userId, reason: 'Lost phone, ticket 88' }, reason: 'Lost phone' },
    });
    expect([submitted.status, submitted.body.status]).toEqual([202, 'PENDING']);
    const detail = await p.call('GET', `${APPROVALS}/${submitted.body.id}`, { token: other.token });
    expect(detail.body.viewer).toEqual({ canDecide: false, reasonIfNot: 'APPROVAL_CHECKER_CONCERNED' });
    const refused = await approve(submitted.body.id, other.token);
    expect([refused.status, refused.body.code]).toEqual([403, 'APPROVAL_CHECKER_CONCERNED']);
    expect(await stored(submitted.body.id)).toMatchObject({ status: 'PENDING', failure_code: null });
  });
});
