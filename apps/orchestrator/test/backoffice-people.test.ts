import { MoneyPlatform, type TestUser, newPhone, pay } from '../../../test/e2e/money-platform';
import type { Json } from './platform-harness';

const PIN = '2580';

/**
 * People for staff through /api (issue 26): the search, the 360 view, freeze and unfreeze on four
 * eyes, ending sessions, staff role changes on four eyes, and the auditor who reads but changes
 * nothing. The real auth, ledger, partners and orchestrator; every call through the gateway.
 */
describe('back office: people', () => {
  const p = new MoneyPlatform();
  let admin: string;
  let compliance: string;
  let compliance2: string;
  let auditor: string;
  let auditorPhone: string;
  let payer: TestUser;
  let payee: TestUser;
  let merchant: TestUser;
  let master: TestUser;
  let agent: TestUser;
  let reference: string;
  /** set by the role change test: a second administrator, and the staff member it promoted */
  let admin2: string;
  let promotedStaff: { phone: string; userId: string; token: string };

  const staff = async (role: string, firstName = 'Staff') => {
    const phone = newPhone();
    const res = await p.call('POST', '/api/orchestrator/admin/staff', {
      token: admin,
      body: { phone, pin: PIN, firstName, lastName: 'Test', countryCode: 'CM', role },
    });
    expect([res.status, res.body.role]).toEqual([201, role]);
    return { phone, userId: res.body.userId as string, token: await p.login(phone, PIN) };
  };
  const get = (path: string, token: string) => p.call('GET', path, { token });
  const post = (path: string, token: string, body: unknown = {}) => p.call('POST', path, { token, body });
  const person = (userId: string, token = compliance) => get(`/api/backoffice/people/${userId}`, token);
  const find = async (q: string, token = compliance): Promise<Json[]> => {
    const res = await get(`/api/backoffice/people?q=${encodeURIComponent(q)}`, token);
    expect(res.status).toBe(200);
    return res.body.items;
  };

  beforeAll(async () => {
    await p.start({ partners: true });
    admin = await p.adminToken();
    compliance = (await staff('COMPLIANCE')).token;
    compliance2 = (await staff('COMPLIANCE')).token;
    const a = await staff('AUDITOR', 'Audrey');
    auditor = a.token;
    auditorPhone = a.phone;
    payer = await p.register('CUSTOMER', { firstName: 'Zébulon' });
    payee = await p.register('CUSTOMER');
    merchant = await p.register('MERCHANT');
    master = await p.register('AGENT');
    const promoted = await p.call('PUT', `/api/orchestrator/admin/users/${master.userId}/role`, {
      token: admin,
      body: { role: 'MASTER_AGENT' },
    });
    expect(promoted.status).toBe(200);
    agent = await p.register('AGENT', { masterAgentCode: master.agentCode });
    await p.fund(payer.accounts.XAF, 50_000);
    const { confirmed } = await pay(p, payer, { type: 'TRANSFER', amount: 1_000, clientPhone: payee.phone });
    expect(confirmed?.status).toBe(200);
    reference = confirmed!.body.referenceId;
  }, 120_000);
  afterAll(() => p.stop());

  it('finds a person by exact phone, phone prefix, name prefix and every id it holds; staff are marked STAFF', async () => {
    const ids = (items: Json[]) => items.map((i: Json) => i.userId);
    expect(ids(await find(payer.phone))).toEqual([payer.userId]);
    expect(ids(await find(payer.phone.slice(0, -1)))).toContain(payer.userId);
    expect(ids(await find(payer.phone.slice(1)))).toEqual([payer.userId]); // without the +
    expect(ids(await find('zébu'))).toEqual([payer.userId]);
    const wallet = (await person(payer.userId)).body.wallet.walletId as string;
    for (const id of [payer.userId, payer.customerId, wallet, payer.accounts.XAF, payer.accounts.XAF.toUpperCase()]) {
      expect(ids(await find(id))).toEqual([payer.userId]);
    }
    expect(ids(await find(merchant.merchantId!))).toEqual([merchant.userId]);
    expect(ids(await find(agent.agentCode!))).toEqual([agent.userId]);
    const [found] = await find(payer.phone);
    expect(found).toMatchObject({ kind: 'CUSTOMER', role: 'CUSTOMER', status: 'active', kycTier: 'TIER_1', customerId: payer.customerId });
    expect(await find(auditorPhone)).toEqual([
      expect.objectContaining({ kind: 'STAFF', role: 'AUDITOR', status: null, staffId: expect.any(String) }),
    ]);
    expect(await find('+2376000000000')).toEqual([]);
  });

  it('an account the orchestrator does not hold is found through the ledger, which names its owner', async () => {
    const someone = await p.register('CUSTOMER');
    await p.sql.query(`DELETE FROM orchestrator.ledger_accounts WHERE account_id = $1`, [someone.accounts.XOF]);
    expect((await find(someone.accounts.XOF)).map((i: Json) => i.userId)).toEqual([someone.userId]);
    // an id nobody holds, in the orchestrator or at the ledger: nothing
    expect(await find('7d2f8a9e-1b3c-4d5e-8f6a-9b0c1d2e3f4a')).toEqual([]);
  });

  it('pages newest first without gaps or repeats; bad input is a VALIDATION_ERROR with its field', async () => {
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await p.register('CUSTOMER', { firstName: 'Paginé' })).userId);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`/api/backoffice/people?q=Pagin&limit=2${cursor ? `&cursor=${cursor}` : ''}`, compliance);
      seen.push(...res.body.items.map((i: Json) => i.userId));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...made].reverse());
    const noQ = await get('/api/backoffice/people', compliance);
    expect([noQ.status, noQ.body.errors[0].field]).toEqual([400, 'q']);
    const badCursor = await get('/api/backoffice/people?q=a&cursor=nope', compliance);
    expect(badCursor.body.errors[0]).toMatchObject({ field: 'cursor', code: 'INVALID_CURSOR' });
    const customer = await get(`/api/backoffice/people?q=a`, payer.token);
    expect([customer.status, customer.body.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('the 360 view of a customer with money: identity, balances, operator holds, limit usage, recent operations, sessions', async () => {
    const hold = await post('/api/backoffice/ledger/holds', compliance, {
      accountId: payer.accounts.XAF,
      amount: 2_000,
      reason: 'court order 12',
    });
    expect(hold.status).toBe(202);
    expect((await post(`/api/backoffice/approvals/${hold.body.id}/approve`, compliance2, {})).body.status).toBe('EXECUTED');
    const res = await person(payer.userId);
    expect(res.status).toBe(200);
    const view = res.body;
    expect(view).toMatchObject({
      userId: payer.userId,
      kind: 'CUSTOMER',
      role: 'CUSTOMER',
      kycTier: 'TIER_1',
      status: 'active',
      freeze: null,
      identity: { phone: payer.phone, firstName: 'Zébulon', customerId: payer.customerId },
      merchant: null,
      agent: null,
    });
    const ledger = await p.balance(payer.accounts.XAF);
    const xaf = view.wallet.balances.find((b: Json) => b.accountId === payer.accounts.XAF);
    expect(view.wallet.unavailable).toBeNull();
    expect(xaf).toEqual({
      accountId: payer.accounts.XAF,
      currency: 'XAF',
      accountType: 'customer',
      available: ledger.availableBalance,
      held: ledger.frozenBalance,
      total: ledger.balance,
    });
    expect(ledger.balance).toBeLessThanOrEqual(49_000);
    expect(view.recentOperations.unavailable).toBeNull();
    // newest first: the transfer, then the test funding (an adjustment of the account)
    expect(view.recentOperations.items.map((o: Json) => o.referenceId)).toEqual([reference, expect.any(String)]);
    expect(view.limits.unavailable).toBeNull();
    expect(view.limits.windows).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ subject: 'CUSTOMER', currency: 'XAF', window: 'DAY', used: 1_000 }),
        expect.objectContaining({ subject: 'CUSTOMER', currency: 'XAF', window: 'MONTH', used: 1_000 }),
        expect.objectContaining({ subject: 'CUSTOMER', currency: 'XAF', window: 'BALANCE', used: ledger.balance }),
      ]),
    );
    expect(view.holds).toEqual({
      unavailable: null,
      items: [
        expect.objectContaining({
          accountId: payer.accounts.XAF,
          amount: 2_000,
          currency: 'XAF',
          status: 'ACTIVE',
          reason: 'court order 12',
        }),
      ],
    });
    expect(xaf.held).toBe(2_000);
    expect(view.security.unavailable).toBeNull();
    expect(view.security.value.sessions.length).toBeGreaterThanOrEqual(1);
    expect(view.security.value.secondFactor).toMatchObject({ required: false, enrolled: false });
  });

  it('the 360 view of a merchant (connections) and of an agent (float, commission, master agent); unknown user 404', async () => {
    const m = (await person(merchant.userId)).body;
    expect(m).toMatchObject({
      kind: 'MERCHANT',
      merchant: { merchantId: merchant.merchantId, connections: { unavailable: null, items: [] } },
    });
    const a = (await person(agent.userId)).body;
    expect(a).toMatchObject({
      kind: 'AGENT',
      agent: { agentCode: agent.agentCode, masterAgent: { agentCode: master.agentCode, userId: master.userId }, unavailable: null },
    });
    expect(a.agent.float.map((b: Json) => b.accountId)).toContain(agent.accounts.XAF);
    expect(a.agent.commission.map((b: Json) => b.accountId)).toContain(agent.commission.XAF);
    expect(a.limits.windows).toEqual(expect.arrayContaining([expect.objectContaining({ subject: 'AGENT', window: 'DAY', used: 0 })]));
    const unknown = await person('7d2f8a9e-1b3c-4d5e-8f6a-9b0c1d2e3f4a');
    expect([unknown.status, unknown.body.code]).toEqual([404, 'PERSON_NOT_FOUND']);
    expect((await person('nope')).body.errors[0]).toMatchObject({ field: 'userId', code: 'INVALID_UUID' });
  });

  it('a part that cannot be read says why in its own field; the rest of the view stands', async () => {
    const cut = await p.bootGateway({ PARTNERS_URL: 'http://127.0.0.1:9' });
    const res = await p.call('GET', `/api/backoffice/people/${merchant.userId}`, { token: compliance, via: cut });
    expect(res.status).toBe(200);
    expect(res.body.merchant.connections).toEqual({ unavailable: 'UPSTREAM_UNAVAILABLE', items: null });
    expect(res.body.wallet.unavailable).toBeNull();
    expect(res.body.identity.phone).toBe(merchant.phone);
  });

  it('freeze with a reason code at once; unfreeze on four eyes: the maker cannot approve, another officer can, then the customer signs in', async () => {
    const frozen = await post(`/api/backoffice/people/${payee.userId}/freeze`, compliance, {
      reasonCode: 'LOST_DEVICE',
      note: 'phone stolen, ticket 9',
    });
    expect([frozen.status, frozen.body.status]).toEqual([200, 'frozen']);
    const login = await p.call('POST', '/api/auth/login', { body: { phone: payee.phone, pin: payee.pin } });
    expect([login.status, login.body.code]).toEqual([403, 'ACCOUNT_DISABLED']);
    const me = (await get('/api/auth/me', compliance)).body.id;
    expect((await person(payee.userId)).body.freeze).toMatchObject({
      reasonCode: 'LOST_DEVICE',
      note: 'phone stolen, ticket 9',
      frozenBy: me,
    });
    const badCode = await post(`/api/backoffice/people/${payee.userId}/freeze`, compliance, { reasonCode: 'BORED' });
    expect(badCode.body.errors[0]).toMatchObject({ field: 'reasonCode' });

    const asked = await post(`/api/backoffice/people/${payee.userId}/unfreeze`, compliance, { reason: 'device recovered' });
    expect([asked.status, asked.body.status, asked.body.action]).toEqual([202, 'PENDING', 'CUSTOMER_UNFREEZE']);
    const again = await post(`/api/backoffice/people/${payee.userId}/unfreeze`, compliance2, { reason: 'same' });
    expect([again.status, again.body.code]).toEqual([409, 'APPROVAL_DUPLICATE_PENDING']);
    const self = await post(`/api/backoffice/approvals/${asked.body.id}/approve`, compliance, { reason: 'ok' });
    expect([self.status, self.body.code]).toEqual([403, 'APPROVAL_SELF_DECISION']);
    expect((await person(payee.userId)).body.status).toBe('frozen');

    const approved = await post(`/api/backoffice/approvals/${asked.body.id}/approve`, compliance2, { reason: 'checked' });
    expect([approved.status, approved.body.status]).toEqual([200, 'EXECUTED']);
    expect((await person(payee.userId)).body).toMatchObject({ status: 'active', freeze: null });
    payee.token = await p.login(payee.phone, payee.pin);
    const notFrozen = await post(`/api/backoffice/people/${payee.userId}/unfreeze`, compliance, { reason: 'again' });
    expect([notFrozen.status, notFrozen.body.code]).toEqual([409, 'PERSON_NOT_FROZEN']);
  });

  it('the old unfreeze route goes through the engine too (202 with the request)', async () => {
    const someone = await p.register('CUSTOMER');
    expect((await post(`/api/orchestrator/admin/customers/${someone.customerId}/freeze`, compliance, { reason: 'x' })).status).toBe(200);
    const asked = await post(`/api/orchestrator/admin/customers/${someone.customerId}/unfreeze`, compliance, { reason: 'cleared' });
    expect([asked.status, asked.body.action, asked.body.status]).toEqual([202, 'CUSTOMER_UNFREEZE', 'PENDING']);
    const approved = await post(`/api/backoffice/approvals/${asked.body.id}/approve`, admin, {});
    expect(approved.body.status).toBe('EXECUTED');
    expect((await person(someone.userId)).body.status).toBe('active');
  });

  it('a reason is 3 to 500 characters as the requests table counts them: anything else is 400 INVALID_REASON, never a 500', async () => {
    const someone = await p.register('CUSTOMER');
    expect((await post(`/api/backoffice/people/${someone.userId}/freeze`, compliance, { reasonCode: 'LOST_DEVICE' })).status).toBe(200);
    // 251 "❤️" are 251 characters to class-validator's MaxLength and 502 to PostgreSQL's CHECK
    const hearts = '❤️'.repeat(251);
    const paths = [
      `/api/backoffice/people/${someone.userId}/unfreeze`,
      `/api/orchestrator/admin/customers/${someone.customerId}/unfreeze`,
      `/api/backoffice/people/${someone.userId}/sessions/revoke`,
    ];
    for (const path of paths) {
      for (const reason of ['x', 'ok', '   ', hearts, 'y'.repeat(501)]) {
        const res = await post(path, compliance, { reason });
        expect([path, reason.length, res.status, res.body.errors]).toEqual([
          path,
          reason.length,
          400,
          [expect.objectContaining({ field: 'reason', code: 'INVALID_REASON' })],
        ]);
      }
    }
    const reset = await post(`/api/backoffice/people/${someone.userId}/second-factor/reset`, admin, { reason: 'ok' });
    expect([reset.status, reset.body.errors]).toEqual([400, [expect.objectContaining({ field: 'reason', code: 'INVALID_REASON' })]]);
    // the bounds themselves are taken and stored as given
    const asked = await post(paths[0], compliance, { reason: 'abc' });
    expect([asked.status, asked.body.reason]).toEqual([202, 'abc']);
    const rejected = await post(`/api/backoffice/approvals/${asked.body.id}/reject`, admin, { reason: 'retry with the longest reason' });
    expect(rejected.body.status).toBe('REJECTED');
    const longest = '❤️'.repeat(250);
    const again = await post(paths[1], compliance, { reason: longest });
    expect([again.status, again.body.reason]).toEqual([202, longest]);
  });

  it('ends every session: the old refresh token no longer works; the person signs in again', async () => {
    const login = await p.call('POST', '/api/auth/login', { body: { phone: merchant.phone, pin: merchant.pin } });
    const { token, refreshToken } = login.body;
    const ended = await post(`/api/backoffice/people/${merchant.userId}/sessions/revoke`, compliance, { reason: 'customer request' });
    expect(ended.status).toBe(200);
    expect(ended.body.revoked).toBeGreaterThanOrEqual(2);
    const refreshed = await p.call('POST', '/api/auth/refresh', { body: { refreshToken } });
    expect(refreshed.status).toBe(401);
    expect((await get('/api/orchestrator/me', token)).status).toBe(401);
    merchant.token = await p.login(merchant.phone, merchant.pin);
    const noReason = await post(`/api/backoffice/people/${merchant.userId}/sessions/revoke`, compliance, {});
    expect(noReason.body.errors[0]).toMatchObject({ field: 'reason' });
  });

  it('a staff role change waits for a second administrator; the maker cannot approve it; the new role applies at the next sign-in', async () => {
    const adminPhone = newPhone();
    const other = await p.call('POST', '/api/orchestrator/auth/register/admin', {
      token: admin,
      body: { phone: adminPhone, pin: PIN, firstName: 'Second', lastName: 'Admin', countryCode: 'CM' },
    });
    expect(other.status).toBe(201);
    admin2 = await p.login(adminPhone, PIN);
    const support = await staff('SUPPORT');
    promotedStaff = support;
    const asked = await p.call('PUT', `/api/orchestrator/admin/users/${support.userId}/role`, {
      token: admin,
      body: { role: 'COMPLIANCE' },
    });
    expect([asked.status, asked.body.action, asked.body.status]).toEqual([202, 'STAFF_ROLE_CHANGE', 'PENDING']);
    expect((await post(`/api/backoffice/approvals/${asked.body.id}/approve`, admin, {})).body.code).toBe('APPROVAL_SELF_DECISION');
    expect((await get('/api/orchestrator/me', support.token)).body.role).toBe('SUPPORT');
    const approved = await post(`/api/backoffice/approvals/${asked.body.id}/approve`, admin2, { reason: 'promotion agreed' });
    expect([approved.status, approved.body.status]).toEqual([200, 'EXECUTED']);
    expect(approved.body.result).toEqual({ userId: support.userId, from: 'SUPPORT', role: 'COMPLIANCE' });
    expect((await get('/api/orchestrator/me', support.token)).body.code).toBe('TOKEN_REVOKED');
    support.token = await p.login(support.phone, PIN);
    expect((await get('/api/orchestrator/me', support.token)).body.role).toBe('COMPLIANCE');
    // an agent's promotion is not a staff change: carried out at once, as before
    const promoted = await p.call('PUT', `/api/orchestrator/admin/users/${agent.userId}/role`, {
      token: admin,
      body: { role: 'MASTER_AGENT' },
    });
    expect([promoted.status, promoted.body.role]).toEqual([200, 'MASTER_AGENT']);
  });

  it("a staff member's second factor is reset on four eyes: sessions end and the next sign-in enrols again", async () => {
    const support = promotedStaff;
    expect((await person(support.userId)).body.security.value.secondFactor).toMatchObject({ required: true, enrolled: true });
    const customer = await post(`/api/backoffice/people/${payer.userId}/second-factor/reset`, admin, { reason: 'not staff' });
    expect([customer.status, customer.body.code]).toEqual([409, 'SECOND_FACTOR_STAFF_ONLY']);
    const asked = await post(`/api/backoffice/people/${support.userId}/second-factor/reset`, admin, { reason: 'phone lost' });
    expect([asked.status, asked.body.action, asked.body.status]).toEqual([202, 'STAFF_TOTP_RESET', 'PENDING']);
    expect((await post(`/api/backoffice/approvals/${asked.body.id}/approve`, admin, {})).body.code).toBe('APPROVAL_SELF_DECISION');
    const approved = await post(`/api/backoffice/approvals/${asked.body.id}/approve`, admin2, {});
    expect([approved.body.status, approved.body.result.wasEnrolled]).toEqual(['EXECUTED', true]);
    expect((await get('/api/orchestrator/me', support.token)).status).toBe(401);
    expect((await person(support.userId)).body.security.value.secondFactor).toMatchObject({ enrolled: false });
    const login = await p.call('POST', '/api/auth/login', { body: { phone: support.phone, pin: PIN } });
    expect(login.body.secondFactor).toBe('TOTP_ENROLMENT_REQUIRED');
  });

  it('the auditor reads the 360 view but freezes nothing (403 naming the permission)', async () => {
    expect((await person(payer.userId, auditor)).status).toBe(200);
    expect((await find(payer.phone, auditor)).length).toBe(1);
    const refused = await post(`/api/backoffice/people/${payer.userId}/freeze`, auditor, { reasonCode: 'OTHER' });
    expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN']);
    expect(refused.body.message).toContain('customers.freeze');
    const revoke = await post(`/api/backoffice/people/${payer.userId}/sessions/revoke`, auditor, { reason: 'x' });
    expect([revoke.status, revoke.body.message]).toEqual([403, expect.stringContaining('customers.freeze')]);
  });
});
