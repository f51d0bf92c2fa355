import { MoneyPlatform, type TestUser, newPhone, payOk } from '../../../test/e2e/money-platform';
import type { Json } from './platform-harness';

const PIN = '2580';

/**
 * People for staff through /api (docs/roles.md "People in the back office"): the search, the 360
 * view, freeze and unfreeze on four eyes, ending sessions, staff role changes on four eyes, and the
 * auditor who reads but changes nothing; the creation of checkers (STAFF_CREATE, with its bootstrap
 * exception) and staff disabled and enabled again on four eyes; staff visible only to those who
 * manage users. The real auth, ledger, partners and orchestrator; every call through the gateway;
 * every action on four eyes (no one-person configuration).
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
  let admin2UserId: string;
  let firstChecker: { status: number; body: Json };

  const staff = async (role: string, firstName = 'Staff') => {
    const phone = newPhone();
    const res = await p.call('POST', '/api/orchestrator/admin/staff', {
      token: admin,
      body: { phone, pin: PIN, firstName, lastName: 'Test', countryCode: 'CM', role },
    });
    expect([res.status, res.body.role]).toEqual([201, role]);
    return { phone, userId: res.body.userId as string, token: await p.login(phone, PIN) };
  };
  /** The new staff member chooses a PIN by the PIN reset by SMS (a checker created on four eyes has none they know). */
  const setPinBySms = async (phone: string, pin: string) => {
    expect((await p.call('POST', '/api/auth/reset-pin/request', { body: { phone } })).status).toBe(202);
    const reset = await p.call('POST', '/api/orchestrator/auth/reset-pin', { body: { phone, otp: await p.lastOtp(phone), newPin: pin } });
    expect([reset.status, reset.body]).toEqual([200, { reset: true }]);
  };
  /**
   * A compliance officer or an administrator, once other checkers exist: STAFF_CREATE asked by the
   * administrator (202, no PIN kept), approved by `approver`, then the PIN set by SMS.
   */
  const checkerStaff = async (role: 'COMPLIANCE' | 'ADMIN', approver: string, firstName = 'Checker') => {
    const phone = newPhone();
    const path = role === 'ADMIN' ? '/api/orchestrator/auth/register/admin' : '/api/orchestrator/admin/staff';
    const body = { phone, pin: PIN, firstName, lastName: 'Test', countryCode: 'CM', ...(role === 'ADMIN' ? {} : { role }) };
    const asked = await p.call('POST', path, { token: admin, body });
    expect([asked.status, asked.body.action, asked.body.status]).toEqual([202, 'STAFF_CREATE', 'PENDING']);
    expect(asked.body.payload).toEqual({ role, phone, firstName, lastName: 'Test', countryCode: 'CM' });
    const approved = await post(`/api/backoffice/approvals/${asked.body.id}/approve`, approver, { reason: 'known to the team' });
    expect([approved.status, approved.body.status, approved.body.result.role]).toEqual([200, 'EXECUTED', role]);
    await setPinBySms(phone, PIN);
    return { phone, userId: approved.body.result.userId as string, token: await p.login(phone, PIN), requestId: asked.body.id as string };
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
    // every sign-in of the file comes from one address: its login limit is out of the way
    await p.start({ partners: true, authEnv: { LOGIN_LIMIT_PER_IP: '0' } });
    admin = await p.adminToken();
    // the platform's first checker: the bootstrap exception (nobody else could approve it)
    firstChecker = await p.call('POST', '/api/orchestrator/admin/staff', {
      token: admin,
      body: { phone: newPhone(), pin: PIN, firstName: 'First', lastName: 'Officer', countryCode: 'CM', role: 'COMPLIANCE' },
    });
    expect(firstChecker.status).toBe(201);
    compliance = await p.login(firstChecker.body.phone, PIN);
    compliance2 = (await checkerStaff('COMPLIANCE', compliance)).token;
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
    const confirmed = await payOk(p, payer, { type: 'TRANSFER', amount: 1_000, clientPhone: payee.phone });
    reference = confirmed.body.referenceId;
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
    // staff are found by those who manage users only
    expect(await find(auditorPhone, admin)).toEqual([
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
    // a second administrator is a checker: created on four eyes (a compliance officer approves)
    const other = await checkerStaff('ADMIN', compliance, 'Second');
    admin2 = other.token;
    admin2UserId = other.userId;
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
    expect((await person(support.userId, admin)).body.security.value.secondFactor).toMatchObject({ required: true, enrolled: true });
    const customer = await post(`/api/backoffice/people/${payer.userId}/second-factor/reset`, admin, { reason: 'not staff' });
    expect([customer.status, customer.body.code]).toEqual([409, 'SECOND_FACTOR_STAFF_ONLY']);
    const asked = await post(`/api/backoffice/people/${support.userId}/second-factor/reset`, admin, { reason: 'phone lost' });
    expect([asked.status, asked.body.action, asked.body.status]).toEqual([202, 'STAFF_TOTP_RESET', 'PENDING']);
    expect((await post(`/api/backoffice/approvals/${asked.body.id}/approve`, admin, {})).body.code).toBe('APPROVAL_SELF_DECISION');
    const approved = await post(`/api/backoffice/approvals/${asked.body.id}/approve`, admin2, {});
    expect([approved.body.status, approved.body.result.wasEnrolled]).toEqual(['EXECUTED', true]);
    expect((await get('/api/orchestrator/me', support.token)).status).toBe(401);
    expect((await person(support.userId, admin)).body.security.value.secondFactor).toMatchObject({ enrolled: false });
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
  it('the first checker was created at once (bootstrap exception, recorded); the next ones wait for a second person and keep no PIN', async () => {
    expect(firstChecker.body).toMatchObject({ role: 'COMPLIANCE', bootstrapException: true });
    const saga = await p.sql.query(`SELECT context->>'bootstrapException' AS used FROM orchestrator.sagas WHERE id = $1`, [
      firstChecker.body.registrationId,
    ]);
    expect(saga.rows).toEqual([{ used: 'true' }]);

    const phone = newPhone();
    const body = { phone, pin: PIN, firstName: 'Mallory', lastName: 'Test', countryCode: 'CM', role: 'COMPLIANCE' };
    const asked = await p.call('POST', '/api/orchestrator/admin/staff', { token: admin, body });
    expect([asked.status, asked.body.action, asked.body.status, asked.body.fourEyes]).toEqual([202, 'STAFF_CREATE', 'PENDING', true]);
    expect(asked.body.bootstrapException).toBeUndefined();
    // the PIN is nowhere in the stored request
    const stored = await p.sql.query(`SELECT payload, prepared FROM orchestrator.approval_requests WHERE id = $1`, [asked.body.id]);
    expect(Object.keys(stored.rows[0].payload).sort()).toEqual(['countryCode', 'firstName', 'lastName', 'phone', 'role']);
    expect(stored.rows[0].prepared).toBeNull();
    // nobody signs in before a second person approves
    expect((await p.call('POST', '/api/auth/login', { body: { phone, pin: PIN } })).status).toBe(401);
    expect((await p.call('POST', '/api/orchestrator/admin/staff', { token: admin, body })).body.code).toBe('APPROVAL_DUPLICATE_PENDING');
    const self = await post(`/api/backoffice/approvals/${asked.body.id}/approve`, admin, {});
    expect([self.status, self.body.code]).toEqual([403, 'APPROVAL_SELF_DECISION']);
    const bySupport = await post(`/api/backoffice/approvals/${asked.body.id}/approve`, (await staff('SUPPORT')).token, {});
    expect(bySupport.status).toBe(403);
    const rejected = await post(`/api/backoffice/approvals/${asked.body.id}/reject`, compliance2, { reason: 'not on the staff list' });
    expect(rejected.body.status).toBe('REJECTED');
    expect(await p.sql.query(`SELECT 1 FROM orchestrator.staff WHERE phone = $1`, [phone]).then((r) => r.rowCount)).toBe(0);

    // approved: created with a PIN nobody was told (the maker's is refused); the SMS PIN reset gives them theirs
    const again = await p.call('POST', '/api/orchestrator/admin/staff', { token: admin, body });
    const approved = await post(`/api/backoffice/approvals/${again.body.id}/approve`, compliance2, {});
    expect([approved.body.status, approved.body.result]).toEqual([
      'EXECUTED',
      expect.objectContaining({ role: 'COMPLIANCE', phone, userId: expect.any(String), staffId: expect.any(String) }),
    ]);
    const withMakersPin = await p.call('POST', '/api/auth/login', { body: { phone, pin: PIN } });
    expect([withMakersPin.status, withMakersPin.body.code]).toEqual([401, 'INVALID_CREDENTIALS']);
    await setPinBySms(phone, '7391');
    const me = await get('/api/orchestrator/me', await p.login(phone, '7391'));
    expect(me.body).toMatchObject({ role: 'COMPLIANCE' });

    // a phone that already has an account is refused when asked, not after approval
    const taken = await p.call('POST', '/api/orchestrator/admin/staff', { token: admin, body: { ...body, phone: payer.phone } });
    expect([taken.status, taken.body.code]).toEqual([409, 'USER_ALREADY_EXISTS']);
    // support operators and auditors decide nothing: created at once, as before
    const support = await p.call('POST', '/api/orchestrator/admin/staff', {
      token: admin,
      body: { ...body, phone: newPhone(), role: 'SUPPORT' },
    });
    expect([support.status, support.body.role]).toEqual([201, 'SUPPORT']);
  });

  it('a staff member is disabled and enabled again on four eyes: sessions end, sign-in refused, then given back', async () => {
    const member = await staff('SUPPORT', 'Leaving');
    const asked = await post(`/api/backoffice/people/${member.userId}/disable`, admin, { reason: 'left the company' });
    expect([asked.status, asked.body.action, asked.body.status]).toEqual([202, 'STAFF_DISABLE', 'PENDING']);
    expect((await post(`/api/backoffice/approvals/${asked.body.id}/approve`, admin, {})).body.code).toBe('APPROVAL_SELF_DECISION');
    // compliance officers decide approvals but do not manage users
    expect((await post(`/api/backoffice/approvals/${asked.body.id}/approve`, compliance, {})).status).toBe(403);
    expect((await get('/api/orchestrator/me', member.token)).status).toBe(200);
    const approved = await post(`/api/backoffice/approvals/${asked.body.id}/approve`, admin2, { reason: 'HR ticket 77' });
    expect([approved.status, approved.body.status, approved.body.result]).toEqual([
      200,
      'EXECUTED',
      { userId: member.userId, status: 'DISABLED' },
    ]);
    const refusedToken = await get('/api/orchestrator/me', member.token);
    expect(refusedToken.status).toBeGreaterThanOrEqual(401);
    const login = await p.call('POST', '/api/auth/login', { body: { phone: member.phone, pin: PIN } });
    expect([login.status, login.body.code]).toEqual([403, 'ACCOUNT_DISABLED']);
    expect((await person(member.userId, admin)).body.security.value).toMatchObject({ status: 'DISABLED', sessions: [] });
    const twice = await post(`/api/backoffice/people/${member.userId}/disable`, admin, { reason: 'again' });
    expect([twice.status, twice.body.code]).toEqual([409, 'STAFF_ALREADY_DISABLED']);

    const enable = await post(`/api/backoffice/people/${member.userId}/enable`, admin, { reason: 'rehired' });
    expect([enable.status, enable.body.action]).toEqual([202, 'STAFF_ENABLE']);
    expect((await post(`/api/backoffice/approvals/${enable.body.id}/approve`, admin2, {})).body.status).toBe('EXECUTED');
    expect((await get('/api/orchestrator/me', await p.login(member.phone, PIN))).body.role).toBe('SUPPORT');
    const notDisabled = await post(`/api/backoffice/people/${member.userId}/enable`, admin, { reason: 'again' });
    expect([notDisabled.status, notDisabled.body.code]).toEqual([409, 'STAFF_NOT_DISABLED']);

    // nobody asks about their own access; the person concerned never decides; customers are frozen, not disabled
    const own = await post(`/api/backoffice/people/${admin2UserId}/disable`, admin2, { reason: 'my own' });
    expect([own.status, own.body.code]).toEqual([403, 'OWN_ACCOUNT_ACTION']);
    const aboutAdmin2 = await post(`/api/backoffice/people/${admin2UserId}/disable`, admin, { reason: 'audit finding' });
    const concerned = await post(`/api/backoffice/approvals/${aboutAdmin2.body.id}/approve`, admin2, {});
    expect([concerned.status, concerned.body.code]).toEqual([403, 'APPROVAL_CHECKER_CONCERNED']);
    expect((await post(`/api/backoffice/approvals/${aboutAdmin2.body.id}/reject`, compliance2, { reason: 'not for you' })).body.code).toBe(
      'FORBIDDEN',
    );
    const customer = await post(`/api/backoffice/people/${payer.userId}/disable`, admin, { reason: 'not staff' });
    expect([customer.status, customer.body.code]).toEqual([409, 'PERSON_NOT_STAFF']);
    const bySupport = await post(`/api/backoffice/people/${member.userId}/disable`, compliance, { reason: 'no right' });
    expect([bySupport.status, bySupport.body.message]).toEqual([403, expect.stringContaining('users.manage')]);
  });

  it('staff are visible only to those who manage users: customers.read alone finds no staff and opens no staff 360', async () => {
    const staffUserId = firstChecker.body.userId as string;
    const staffPhone = firstChecker.body.phone as string;
    for (const viewer of [compliance, auditor, (await staff('SUPPORT', 'Viewer')).token]) {
      expect(await find(staffPhone, viewer)).toEqual([]);
      expect(await find(staffUserId, viewer)).toEqual([]);
      expect(await find('First Officer', viewer)).toEqual([]);
      const view = await person(staffUserId, viewer);
      expect([view.status, view.body.code]).toEqual([404, 'PERSON_NOT_FOUND']);
    }
    const ended = await post(`/api/backoffice/people/${staffUserId}/sessions/revoke`, compliance2, { reason: 'not theirs to end' });
    expect([ended.status, ended.body.code]).toEqual([404, 'PERSON_NOT_FOUND']);
    expect((await find(staffPhone, admin)).map((i: Json) => i.userId)).toEqual([staffUserId]);
    expect((await find('First Officer', admin)).map((i: Json) => i.userId)).toEqual([staffUserId]);
    expect((await person(staffUserId, admin)).body).toMatchObject({ kind: 'STAFF', role: 'COMPLIANCE' });
    // customers are still found by everyone who reads customers
    expect((await find(payer.phone, auditor)).length).toBe(1);
  });

  it('a freeze note or reason is counted as the events table counts it: 300 "❤️" is 400, and auth is never asked', async () => {
    const someone = await p.register('CUSTOMER');
    const hearts = '❤️'.repeat(300); // 300 to MaxLength, 600 to char_length
    const note = await post(`/api/backoffice/people/${someone.userId}/freeze`, compliance, { reasonCode: 'OTHER', note: hearts });
    expect([note.status, note.body.errors]).toEqual([400, [expect.objectContaining({ field: 'note', code: 'INVALID_NOTE' })]]);
    const reason = await post(`/api/orchestrator/admin/customers/${someone.customerId}/freeze`, compliance, { reason: hearts });
    expect([reason.status, reason.body.errors]).toEqual([400, [expect.objectContaining({ field: 'reason', code: 'INVALID_REASON' })]]);
    expect((await get('/api/orchestrator/me', someone.token)).status).toBe(200);
    // 250 of them are 500 to the table: taken
    const fits = await post(`/api/backoffice/people/${someone.userId}/freeze`, compliance, { reasonCode: 'OTHER', note: '❤️'.repeat(250) });
    expect([fits.status, fits.body.status]).toEqual([200, 'frozen']);
  });

  it('the freeze writes its own rows before auth is asked: when they are refused, auth has disabled nobody', async () => {
    const someone = await p.register('CUSTOMER');
    // a refusal of the events table that validation cannot foresee
    await p.sql.query(
      `ALTER TABLE orchestrator.customer_status_events ADD CONSTRAINT test_refuse CHECK (reason <> 'refused by the table')`,
    );
    try {
      const res = await post(`/api/backoffice/people/${someone.userId}/freeze`, compliance, {
        reasonCode: 'OTHER',
        note: 'refused by the table',
      });
      expect(res.status).toBe(500);
    } finally {
      await p.sql.query(`ALTER TABLE orchestrator.customer_status_events DROP CONSTRAINT test_refuse`);
    }
    expect((await person(someone.userId)).body.status).toBe('active');
    const auth = await p.sql.query(`SELECT status FROM auth.users WHERE id = $1`, [someone.userId]);
    expect(auth.rows).toEqual([{ status: 'ACTIVE' }]);
    expect((await get('/api/orchestrator/me', someone.token)).status).toBe(200);
  });
});
