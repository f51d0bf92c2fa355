import { randomUUID } from 'node:crypto';
import { type Answer, type Json, MoneyPlatform, newPhone, payOk } from '../../../test/e2e/money-platform';

const LEDGER = '/api/backoffice/ledger';
const APPROVALS = '/api/backoffice/approvals';

/**
 * Staff ledger operations through `/api/backoffice/ledger` on the maker-checker engine, against the
 * real platform (auth, ledger, orchestrator as the gateway) with real staff tokens: the administrator
 * is the maker, a compliance officer the checker. No service key and no private port anywhere.
 */
describe('backoffice ledger operations: corrections, reversals, float funding and holds under four eyes', () => {
  const p = new MoneyPlatform();
  let admin: string;
  let adminId: string;
  let officer: { token: string; userId: string };
  let support: { token: string; userId: string };
  let auditor: string;

  async function staff(role: 'COMPLIANCE' | 'SUPPORT' | 'AUDITOR', firstName: string): Promise<{ token: string; userId: string }> {
    const phone = newPhone();
    const created = await p.call('POST', '/api/orchestrator/admin/staff', {
      token: admin,
      body: { phone, pin: '2580', firstName, lastName: 'Test', countryCode: 'CM', role },
    });
    if (created.status !== 201) throw new Error(`staff ${role} ${created.status} ${JSON.stringify(created.body)}`);
    return { token: await p.login(phone, '2580'), userId: created.body.userId as string };
  }

  beforeAll(async () => {
    // creating officers is only set-up here: one pair of eyes (STAFF_CREATE's four eyes: backoffice-people.test.ts)
    await p.start({ orchestratorEnv: { APPROVALS_ONE_PERSON_ACTIONS: 'STAFF_CREATE' } });
    admin = await p.adminToken();
    adminId = (JSON.parse(Buffer.from(admin.split('.')[1], 'base64url').toString()) as { sub: string }).sub;
    officer = await staff('COMPLIANCE', 'Clara');
    support = await staff('SUPPORT', 'Sam');
    auditor = (await staff('AUDITOR', 'Audrey')).token;
  }, 120_000);
  afterAll(() => p.stop());

  const approve = (id: string, token: string): Promise<Answer> =>
    p.call('POST', `${APPROVALS}/${id}/approve`, { token, body: { reason: 'Checked against the request form' } });

  it('float funding: submitted by the administrator, approved by the compliance officer; the float grows by the amount, once', async () => {
    const agent = await p.register('AGENT');
    const float = agent.accounts.XAF;
    const before = await p.balance(float);

    const submitted = await p.call('POST', `${LEDGER}/agents/${agent.agentId}/float-fundings`, {
      token: admin,
      body: { amount: 500_000, currency: 'XAF', reason: 'Initial float agreed with the network manager' },
    });
    expect([submitted.status, submitted.body.action, submitted.body.status, submitted.body.fourEyes]).toEqual([
      202,
      'FLOAT_FUNDING',
      'PENDING',
      true,
    ]);
    expect(submitted.body.target).toEqual({ type: 'agent', id: agent.agentId });
    expect(submitted.body.amount).toEqual({ value: 500_000, currency: 'XAF' });
    const id = submitted.body.id as string;
    expect(await p.balance(float)).toEqual(before);

    // the checker sees exactly the postings: the float credited, suspense debited
    const detail = await p.call('GET', `${APPROVALS}/${id}`, { token: officer.token });
    expect(detail.status).toBe(200);
    const preview = detail.body.preview as Json;
    expect(preview.entries).toEqual(
      expect.arrayContaining([
        { accountId: float, accountType: 'agent', direction: 'CREDIT', amount: 500_000 },
        expect.objectContaining({ accountType: 'suspense', direction: 'DEBIT', amount: 500_000 }),
      ]),
    );
    expect(preview.entries).toHaveLength(2);
    expect(preview.accounts.find((a: Json) => a.accountId === float)).toMatchObject({
      availableBefore: before.availableBalance,
      availableAfter: before.availableBalance + 500_000,
    });

    // the maker can never approve their own request
    const self = await approve(id, admin);
    expect([self.status, self.body.code]).toEqual([403, 'APPROVAL_SELF_DECISION']);
    expect(await p.balance(float)).toEqual(before);

    const approved = await approve(id, officer.token);
    expect([approved.status, approved.body.status]).toEqual([200, 'EXECUTED']);
    expect(approved.body.result).toMatchObject({ correctionId: preview.correctionId, transactionId: expect.any(String) });
    expect(await p.balance(float)).toEqual({
      ...before,
      balance: before.balance + 500_000,
      availableBalance: before.availableBalance + 500_000,
    });

    // twice at once, or again later: executed once
    const again = await Promise.all([approve(id, officer.token), approve(id, officer.token)]);
    for (const a of again) expect([a.status, a.body.code]).toEqual([409, 'APPROVAL_ALREADY_DECIDED']);
    expect((await p.balance(float)).balance).toBe(before.balance + 500_000);

    // the ledger's own record names the maker and the checker, relayed by the orchestrator's credential
    const correction = await p.call('GET', `${LEDGER}/corrections/${preview.correctionId}`, { token: auditor });
    expect(correction.status).toBe(200);
    expect(correction.body).toMatchObject({
      kind: 'ACCOUNT',
      accountId: float,
      direction: 'CREDIT',
      amount: 500_000,
      status: 'EXECUTED',
      maker: { id: adminId, roles: ['ADMIN'] },
      checker: { id: officer.userId, roles: ['COMPLIANCE'] },
    });
    expect(correction.body.events.map((e: Json) => e.event)).toEqual(expect.arrayContaining(['submitted', 'approved', 'executed']));
  });

  it('two checkers approving the same float funding at once: executed once, the float grows once', async () => {
    const second = await staff('COMPLIANCE', 'Chloe');
    const agent = await p.register('AGENT');
    const before = (await p.balance(agent.accounts.XAF)).balance;
    const submitted = await p.call('POST', `${LEDGER}/agents/${agent.agentId}/float-fundings`, {
      token: admin,
      body: { amount: 80_000, currency: 'XAF', reason: 'Concurrent approvals' },
    });
    const answers = await Promise.all([approve(submitted.body.id, officer.token), approve(submitted.body.id, second.token)]);
    expect(answers.filter((a) => a.status === 200 && a.body.status === 'EXECUTED')).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(1);
    expect((await p.balance(agent.accounts.XAF)).balance).toBe(before + 80_000);
  });

  it('an agent is also named by its agent code or its phone; an unknown one is 404 AGENT_NOT_FOUND', async () => {
    const agent = await p.register('AGENT');
    const byCode = await p.call('POST', `${LEDGER}/agents/${agent.agentCode}/float-fundings`, {
      token: admin,
      body: { amount: 1_000, currency: 'XAF', reason: 'Top-up by code' },
    });
    expect([byCode.status, byCode.body.target]).toEqual([202, { type: 'agent', id: agent.agentId }]);
    const byPhone = await p.call('POST', `${LEDGER}/agents/${encodeURIComponent(agent.phone)}/float-fundings`, {
      token: admin,
      body: { amount: 2_000, currency: 'XAF', reason: 'Top-up by phone' },
    });
    expect([byPhone.status, byPhone.body.target]).toEqual([202, { type: 'agent', id: agent.agentId }]);
    const unknown = await p.call('POST', `${LEDGER}/agents/${randomUUID()}/float-fundings`, {
      token: admin,
      body: { amount: 1_000, currency: 'XAF', reason: 'Nobody' },
    });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'AGENT_NOT_FOUND']);
  });

  it('the reversal of a real payment, with four eyes, puts every balance back', async () => {
    const payer = await p.register('CUSTOMER');
    const payee = await p.register('CUSTOMER');
    await p.fund(payer.accounts.XAF, 50_000);
    const payerBefore = await p.balance(payer.accounts.XAF);
    const payeeBefore = await p.balance(payee.accounts.XAF);
    const confirmed = await payOk(p, payer, { type: 'TRANSFER', amount: 10_000, clientPhone: payee.phone });
    expect((await p.balance(payer.accounts.XAF)).balance).toBeLessThan(payerBefore.balance);

    const submitted = await p.call('POST', `${LEDGER}/corrections`, {
      token: admin,
      body: { kind: 'REVERSAL', referenceId: confirmed.body.referenceId, reason: 'Paid the wrong person, agreed by both' },
    });
    expect([submitted.status, submitted.body.action, submitted.body.status]).toEqual([202, 'LEDGER_REVERSAL', 'PENDING']);

    const duplicate = await p.call('POST', `${LEDGER}/corrections`, {
      token: admin,
      body: { kind: 'REVERSAL', referenceId: confirmed.body.referenceId, reason: 'The same again, another reason' },
    });
    expect([duplicate.status, duplicate.body.code]).toEqual([409, 'APPROVAL_DUPLICATE_PENDING']);

    const approved = await approve(submitted.body.id, officer.token);
    expect([approved.status, approved.body.status]).toEqual([200, 'EXECUTED']);
    expect(await p.balance(payer.accounts.XAF)).toMatchObject({
      balance: payerBefore.balance,
      availableBalance: payerBefore.availableBalance,
    });
    expect(await p.balance(payee.accounts.XAF)).toMatchObject({
      balance: payeeBefore.balance,
      availableBalance: payeeBefore.availableBalance,
    });
    expect(await p.invariants()).toMatchObject({ ledgerGaps: 0, splitGaps: 0, unbalancedTransactions: 0 });
  });

  it('a reversal the ledger refuses at execution is FAILED with its code, and can be submitted again', async () => {
    const payer = await p.register('CUSTOMER');
    const payee = await p.register('CUSTOMER');
    const other = await p.register('CUSTOMER');
    await p.fund(payer.accounts.XAF, 50_000);
    const confirmed = await payOk(p, payer, { type: 'TRANSFER', amount: 10_000, clientPhone: payee.phone });
    // the payee spends the money: the reversal cannot take it back
    await payOk(p, payee, { type: 'TRANSFER', amount: 9_000, clientPhone: other.phone });
    const payeeBefore = await p.balance(payee.accounts.XAF);

    const submitted = await p.call('POST', `${LEDGER}/corrections`, {
      token: admin,
      body: { kind: 'REVERSAL', referenceId: confirmed.body.referenceId, reason: 'Disputed payment' },
    });
    expect(submitted.status).toBe(202);
    const detail = await p.call('GET', `${APPROVALS}/${submitted.body.id}`, { token: officer.token });
    expect(detail.body.preview.executable).toBe(false);
    const correctionId = detail.body.preview.correctionId as string;

    const approved = await approve(submitted.body.id, officer.token);
    expect([approved.status, approved.body.status, approved.body.failure?.code]).toEqual([200, 'FAILED', 'INSUFFICIENT_BALANCE']);
    expect(await p.balance(payee.accounts.XAF)).toEqual(payeeBefore);
    // nobody rejected it: the ledger's correction is expired under the orchestrator, not rejected in the checker's name
    const correction = await p.call('GET', `${LEDGER}/corrections/${correctionId}`, { token: officer.token });
    expect(correction.body).toMatchObject({ status: 'EXPIRED', checker: null });
    expect(correction.body.events.at(-1)).toMatchObject({ event: 'expired', actorId: 'system:orchestrator' });

    // the ledger's slot for this transaction is free again
    const again = await p.call('POST', `${LEDGER}/corrections`, {
      token: admin,
      body: { kind: 'REVERSAL', referenceId: confirmed.body.referenceId, reason: 'Disputed payment, second try' },
    });
    expect([again.status, again.body.status]).toEqual([202, 'PENDING']);
  });

  it("a rejection releases the ledger's pending correction; nothing moves", async () => {
    const customer = await p.register('CUSTOMER');
    const before = await p.balance(customer.accounts.XAF);
    const submitted = await p.call('POST', `${LEDGER}/corrections`, {
      token: admin,
      body: { accountId: customer.accounts.XAF, direction: 'CREDIT', amount: 7_000, currency: 'XAF', reason: 'Duplicate cash-in refund' },
    });
    expect([submitted.status, submitted.body.action]).toEqual([202, 'LEDGER_CORRECTION']);
    const detail = await p.call('GET', `${APPROVALS}/${submitted.body.id}`, { token: officer.token });
    const correctionId = detail.body.preview.correctionId as string;
    expect((await p.call('GET', `${LEDGER}/corrections/${correctionId}`, { token: officer.token })).body.status).toBe('PENDING_APPROVAL');

    const rejected = await p.call('POST', `${APPROVALS}/${submitted.body.id}/reject`, {
      token: officer.token,
      body: { reason: 'No evidence of a duplicate' },
    });
    expect([rejected.status, rejected.body.status]).toEqual([200, 'REJECTED']);
    const correction = await p.call('GET', `${LEDGER}/corrections/${correctionId}`, { token: officer.token });
    expect(correction.body).toMatchObject({ status: 'REJECTED', checker: { id: officer.userId, reason: 'No evidence of a duplicate' } });
    expect(await p.balance(customer.accounts.XAF)).toEqual(before);
  });

  it("a request nobody decides expires, and its ledger correction is EXPIRED by the orchestrator's credential, with no person", async () => {
    // an orchestrator on the same database whose requests live one second, swept every 200 ms
    const gateway = await p.bootGateway({ APPROVAL_TTL_SECONDS: '1', APPROVAL_SWEEP_INTERVAL_MS: '200' });
    const customer = await p.register('CUSTOMER');
    const submitted = await p.call('POST', `${LEDGER}/corrections`, {
      token: admin,
      body: { accountId: customer.accounts.XAF, direction: 'CREDIT', amount: 4_000, reason: 'Left undecided' },
      via: gateway,
    });
    expect(submitted.status).toBe(202);
    const detail = await p.call('GET', `${APPROVALS}/${submitted.body.id}`, { token: officer.token });
    const correctionId = detail.body.preview.correctionId as string;
    let correction: Answer | undefined;
    for (let i = 0; i < 50; i++) {
      correction = await p.call('GET', `${LEDGER}/corrections/${correctionId}`, { token: officer.token });
      if (correction.body.status !== 'PENDING_APPROVAL') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(correction!.body).toMatchObject({ status: 'EXPIRED', checker: null });
    expect(correction!.body.events.at(-1)).toMatchObject({ event: 'expired', actorId: 'system:orchestrator', actorRoles: [] });
    expect((await p.call('GET', `${APPROVALS}/${submitted.body.id}`, { token: officer.token })).body.request.status).toBe('EXPIRED');
    expect((await p.balance(customer.accounts.XAF)).balance).toBe(0);
  });

  it('a hold is placed and released, each on a second person’s approval; the ledger lists it', async () => {
    const customer = await p.register('CUSTOMER');
    const account = customer.accounts.XAF;
    await p.fund(account, 10_000);

    const placed = await p.call('POST', `${LEDGER}/holds`, {
      token: admin,
      body: { accountId: account, amount: 3_000, reason: 'Suspected account takeover, case 4411' },
    });
    expect([placed.status, placed.body.action, placed.body.status]).toEqual([202, 'HOLD_PLACE', 'PENDING']);
    expect(await p.balance(account)).toEqual({ balance: 10_000, availableBalance: 10_000, frozenBalance: 0 });
    const self = await approve(placed.body.id, admin);
    expect([self.status, self.body.code]).toEqual([403, 'APPROVAL_SELF_DECISION']);

    const done = await approve(placed.body.id, officer.token);
    expect([done.status, done.body.status]).toEqual([200, 'EXECUTED']);
    const holdId = done.body.result.holdId as string;
    expect(await p.balance(account)).toEqual({ balance: 10_000, availableBalance: 7_000, frozenBalance: 3_000 });

    const listed = await p.call('GET', `${LEDGER}/holds?accountId=${account}`, { token: auditor });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      expect.objectContaining({
        id: holdId,
        accountId: account,
        amount: 3_000,
        status: 'ACTIVE',
        placed: expect.objectContaining({ by: officer.userId }),
      }),
    ]);

    const release = await p.call('POST', `${LEDGER}/holds/${holdId}/release`, { token: admin, body: { reason: 'Case 4411 closed' } });
    expect([release.status, release.body.action, release.body.amount]).toEqual([202, 'HOLD_RELEASE', { value: 3_000, currency: 'XAF' }]);
    const twice = await p.call('POST', `${LEDGER}/holds/${holdId}/release`, { token: admin, body: { reason: 'Case 4411 closed, again' } });
    expect([twice.status, twice.body.code]).toEqual([409, 'APPROVAL_DUPLICATE_PENDING']);
    expect((await approve(release.body.id, officer.token)).body.status).toBe('EXECUTED');
    expect(await p.balance(account)).toEqual({ balance: 10_000, availableBalance: 10_000, frozenBalance: 0 });
    const hold = await p.call('GET', `${LEDGER}/holds/${holdId}`, { token: officer.token });
    expect(hold.body).toMatchObject({ status: 'RELEASED', released: { by: officer.userId, reason: 'Case 4411 closed' } });

    const after = await p.call('POST', `${LEDGER}/holds/${holdId}/release`, { token: admin, body: { reason: 'Once more' } });
    expect([after.status, after.body.code]).toEqual([409, 'HOLD_ALREADY_RELEASED']);
  });

  it('the database keeps the rules against raw SQL: a released hold is final and never deleted, an expired correction has no checker', async () => {
    const customer = await p.register('CUSTOMER');
    await p.fund(customer.accounts.XAF, 1_000);
    const placed = await p.call('POST', `${LEDGER}/holds`, {
      token: admin,
      body: { accountId: customer.accounts.XAF, amount: 100, reason: 'Raw SQL guard' },
    });
    const holdId = (await approve(placed.body.id, officer.token)).body.result.holdId as string;
    const sqlError = (sql: string, params: unknown[]) =>
      p.sql.query(sql, params).then(
        () => null,
        (error: { code?: string; constraint?: string }) => ({ code: error.code, constraint: error.constraint }),
      );
    // what was placed never changes, and a hold is never deleted
    expect(await sqlError(`UPDATE ledger.holds SET amount = 1 WHERE id = $1`, [holdId])).toMatchObject({ code: '23001' });
    expect(await sqlError(`DELETE FROM ledger.holds WHERE id = $1`, [holdId])).not.toBeNull();
    const release = await p.call('POST', `${LEDGER}/holds/${holdId}/release`, { token: admin, body: { reason: 'Raw SQL guard done' } });
    expect((await approve(release.body.id, officer.token)).body.status).toBe('EXECUTED');
    expect(await sqlError(`UPDATE ledger.holds SET release_reason = 'rewritten' WHERE id = $1`, [holdId])).toMatchObject({ code: '23001' });

    const submitted = await p.call('POST', `${LEDGER}/corrections`, {
      token: admin,
      body: { accountId: customer.accounts.XAF, direction: 'CREDIT', amount: 10, reason: 'Raw SQL guard' },
    });
    const correctionId = (await p.call('GET', `${APPROVALS}/${submitted.body.id}`, { token: officer.token })).body.preview.correctionId;
    expect(
      await sqlError(`UPDATE ledger.corrections SET status = 'EXPIRED', decided_at = now(), checker_id = 'someone' WHERE id = $1`, [
        correctionId,
      ]),
    ).toEqual({ code: '23514', constraint: 'CHK_corrections_decision' });
  });

  it.each([
    ['POST', `${LEDGER}/corrections`, 'ledger.corrections'],
    ['POST', `${LEDGER}/holds`, 'ledger.corrections'],
    ['POST', `${LEDGER}/agents/${randomUUID()}/float-fundings`, 'ledger.corrections'],
    ['GET', `${LEDGER}/corrections`, 'approvals.read'],
  ] as const)('%s %s: support (and the auditor on writes) refused 403 naming %s', async (method, path, permission) => {
    const body =
      method === 'POST' ? { amount: 1, currency: 'XAF', accountId: randomUUID(), direction: 'CREDIT', reason: 'nope' } : undefined;
    const tokens = permission === 'approvals.read' ? [support.token] : [support.token, auditor];
    for (const token of tokens) {
      const res = await p.call(method, path, { token, body });
      expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
      expect(res.body.message).toContain(permission);
    }
  });

  it('bad input answers stable codes: a field of the other kind, an unknown account, a currency that is not the account’s', async () => {
    const customer = await p.register('CUSTOMER');
    const cases: Array<[unknown, number, string]> = [
      [{ kind: 'REVERSAL', referenceId: 'MMPTX261126K7Q2M9Z', amount: 5, reason: 'mixed' }, 400, 'VALIDATION_ERROR'],
      [{ kind: 'REVERSAL', reason: 'names nothing' }, 400, 'VALIDATION_ERROR'],
      [{ accountId: customer.accounts.XAF, direction: 'SIDEWAYS', amount: 5, reason: 'bad direction' }, 400, 'VALIDATION_ERROR'],
      [{ accountId: randomUUID(), direction: 'CREDIT', amount: 5, reason: 'nobody' }, 404, 'ACCOUNT_NOT_FOUND'],
      [
        { accountId: customer.accounts.XAF, direction: 'CREDIT', amount: 5, currency: 'XOF', reason: 'wrong currency' },
        400,
        'CURRENCY_MISMATCH',
      ],
      [{ kind: 'REVERSAL', transactionId: randomUUID(), reason: 'no such transaction' }, 404, 'TRANSACTION_NOT_FOUND'],
    ];
    for (const [body, status, code] of cases) {
      const res = await p.call('POST', `${LEDGER}/corrections`, { token: admin, body });
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status, code });
    }
  });
});
