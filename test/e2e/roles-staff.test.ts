import { randomUUID } from 'node:crypto';
import { PlatformHarness } from '../../apps/orchestrator/test/platform-harness';

const PIN = '2580';
const person = { firstName: 'Awa', lastName: 'Nkoulou', countryCode: 'CM' };

describe('staff routes: staff users, freeze / unfreeze, role changes, customer search', () => {
  const h = new PlatformHarness();
  let admin: string;
  let compliance: string;
  let support: string;

  beforeAll(async () => {
    // The old routes' one-person answers (200 with the customer, with the role change; 201 with a new
    // officer or administrator): unfreezes, staff role changes and the creation of checkers are
    // maker-checker actions, configured here for one pair of eyes.
    // backoffice-people.test.ts covers the four-eyes default.
    await h.start({ orchestrator: { APPROVALS_ONE_PERSON_ACTIONS: 'CUSTOMER_UNFREEZE,STAFF_ROLE_CHANGE,STAFF_CREATE' } });
    admin = await h.adminToken();
    for (const [role, phone] of [
      ['SUPPORT', '+237690800001'],
      ['COMPLIANCE', '+237690800002'],
    ]) {
      const res = await h.call('POST', '/api/orchestrator/admin/staff', { token: admin, body: { phone, pin: PIN, ...person, role } });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ role, staffId: expect.any(String) });
    }
    support = await h.login('+237690800001', PIN);
    compliance = await h.login('+237690800002', PIN);
  });
  afterAll(() => h.stop());

  const register = async (phone: string, path = '/api/orchestrator/auth/register', extra: object = {}) => {
    const res = await h.call('POST', path, { body: { phone, pin: PIN, ...person, ...extra } });
    expect(res.status).toBe(201);
    return res.body as { customerId: string; userId: string; merchantId?: string };
  };

  it('an administrator creates auditors like other staff; an administrator cannot be created by this route', async () => {
    const res = await h.call('POST', '/api/orchestrator/admin/staff', {
      token: admin,
      body: { phone: '+237690800005', pin: PIN, ...person, role: 'AUDITOR' },
    });
    expect([res.status, res.body.role]).toEqual([201, 'AUDITOR']);
    const row = await h.sql.query(`SELECT role FROM orchestrator.staff WHERE user_id = $1`, [res.body.userId]);
    expect(row.rows).toEqual([{ role: 'AUDITOR' }]);
    const auth = await h.sql.query(`SELECT roles FROM auth.users WHERE id = $1`, [res.body.userId]);
    expect(auth.rows).toEqual([{ roles: ['AUDITOR'] }]);
    const asAdmin = await h.call('POST', '/api/orchestrator/admin/staff', {
      token: admin,
      body: { phone: '+237690800006', pin: PIN, ...person, role: 'ADMIN' },
    });
    expect(asAdmin.body.errors?.[0]).toMatchObject({ field: 'role' });
  });

  it('one-person configuration: a second officer and an administrator are created at once with the PIN typed, each recorded as a request', async () => {
    for (const [path, phone, extra] of [
      ['/api/orchestrator/admin/staff', '+237690800007', { role: 'COMPLIANCE' }],
      ['/api/orchestrator/auth/register/admin', '+237690800008', {}],
    ] as const) {
      const res = await h.call('POST', path, { token: admin, body: { phone, pin: PIN, ...person, ...extra } });
      expect([res.status, res.body.phone, res.body.bootstrapException]).toEqual([201, phone, undefined]);
      const request = await h.sql.query(
        `SELECT action, status, four_eyes, payload ? 'pin' AS has_pin FROM orchestrator.approval_requests WHERE target_id = $1`,
        [phone],
      );
      expect(request.rows).toEqual([{ action: 'STAFF_CREATE', status: 'EXECUTED', four_eyes: false, has_pin: false }]);
      expect((await h.call('GET', '/api/orchestrator/me', { token: await h.login(phone, PIN) })).body.userId).toBe(res.body.userId);
    }
  });

  it('staff see their role and permissions; support may not create staff (only administrators)', async () => {
    const me = await h.call('GET', '/api/orchestrator/me', { token: compliance });
    expect(me.body).toMatchObject({ role: 'COMPLIANCE', staff: { role: 'COMPLIANCE', phone: '+237690800002' } });
    expect(me.body.permissions).toContain('customers.freeze');
    const res = await h.call('POST', '/api/orchestrator/admin/staff', {
      token: support,
      body: { phone: '+237690800003', pin: PIN, ...person, role: 'SUPPORT' },
    });
    expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('a frozen customer can neither sign in nor start a money movement; unfreezing gives both back', async () => {
    const phone = '+237690800010';
    const merchant = await register(phone, '/api/orchestrator/auth/register/merchant', { businessName: 'Chez Awa', category: 'RETAIL' });
    const token = await h.login(phone, PIN);
    await register('+237690800011');
    const payer = await h.login('+237690800011', PIN);
    // A payment to the merchant, from a customer with nothing on the account: refused by the risk
    // rules while the merchant is frozen, by the ledger's balance check once it is not.
    const payMerchant = async () => {
      const res = await h.call('POST', '/api/v1/intents', {
        token: payer,
        body: { idempotencyKey: randomUUID(), type: 'TRANSFER', amount: 500, clientPhone: phone },
      });
      return [res.status, res.body.code, res.headers.get('x-risk-reason')];
    };

    const frozen = await h.call('POST', `/api/orchestrator/admin/customers/${merchant.customerId}/freeze`, {
      token: compliance,
      body: { reason: 'suspected account takeover' },
    });
    expect(frozen.status).toBe(200);
    expect(frozen.body.status).toBe('frozen');
    // sign-in refused, the token held is dead at once, money movements refused
    const login = await h.call('POST', '/api/auth/login', { body: { phone, pin: PIN } });
    expect([login.status, login.body.code]).toEqual([403, 'ACCOUNT_DISABLED']);
    expect((await h.call('GET', '/api/orchestrator/me', { token })).status).toBe(401);
    expect(await payMerchant()).toEqual([403, 'RISK_REJECTED', 'COUNTERPARTY_UNAVAILABLE']);
    // partners see the merchant as frozen
    const entry = await h.internal('GET', `/api/internal/directory/merchants/${merchant.merchantId}`);
    expect(entry.body.status).toBe('frozen');
    // audited, and freezing again changes nothing
    expect(
      (await h.call('POST', `/api/orchestrator/admin/customers/${merchant.customerId}/freeze`, { token: admin, body: { reason: 'again' } }))
        .status,
    ).toBe(200);
    const audit = await h.sql.query(
      `SELECT from_status, to_status, reason FROM orchestrator.customer_status_events WHERE customer_id = $1`,
      [merchant.customerId],
    );
    expect(audit.rows).toEqual([{ from_status: 'active', to_status: 'frozen', reason: 'suspected account takeover' }]);

    const unfrozen = await h.call('POST', `/api/orchestrator/admin/customers/${merchant.customerId}/unfreeze`, {
      token: compliance,
      body: { reason: 'identity confirmed' },
    });
    expect(unfrozen.body.status).toBe('active');
    await h.login(phone, PIN);
    expect(await payMerchant()).toEqual([422, 'INSUFFICIENT_BALANCE', null]);
  });

  it('freeze input: unknown customer 404, bad id and missing reason VALIDATION_ERROR, support 403', async () => {
    const unknown = '6f1d3c52-1a2b-4c3d-8e4f-5a6b7c8d9e99';
    expect(
      (await h.call('POST', `/api/orchestrator/admin/customers/${unknown}/freeze`, { token: admin, body: { reason: 'x' } })).body.code,
    ).toBe('CUSTOMER_NOT_FOUND');
    expect((await h.call('POST', `/api/orchestrator/admin/customers/nope/freeze`, { token: admin, body: { reason: 'x' } })).body.code).toBe(
      'VALIDATION_ERROR',
    );
    expect((await h.call('POST', `/api/orchestrator/admin/customers/${unknown}/freeze`, { token: admin, body: {} })).body.code).toBe(
      'VALIDATION_ERROR',
    );
    expect(
      (await h.call('POST', `/api/orchestrator/admin/customers/${unknown}/freeze`, { token: support, body: { reason: 'x' } })).body.code,
    ).toBe('FORBIDDEN');
  });

  it('role changes stay within a family, end the sessions, and apply at the next sign-in', async () => {
    const customer = await register('+237690800020');
    const toAdmin = await h.call('PUT', `/api/orchestrator/admin/users/${customer.userId}/role`, { token: admin, body: { role: 'ADMIN' } });
    expect([toAdmin.status, toAdmin.body.code]).toEqual([409, 'ROLE_CHANGE_NOT_ALLOWED']);
    const unknownRole = await h.call('PUT', `/api/orchestrator/admin/users/${customer.userId}/role`, {
      token: admin,
      body: { role: 'ROOT' },
    });
    expect(unknownRole.body.code).toBe('VALIDATION_ERROR');

    const staffUser = (await h.call('GET', '/api/auth/me', { token: support })).body.id as string;
    const changed = await h.call('PUT', `/api/orchestrator/admin/users/${staffUser}/role`, { token: admin, body: { role: 'COMPLIANCE' } });
    expect(changed.body).toEqual({ userId: staffUser, from: 'SUPPORT', role: 'COMPLIANCE' });
    expect((await h.call('GET', '/api/orchestrator/me', { token: support })).body.code).toBe('TOKEN_REVOKED');
    const again = await h.login('+237690800001', PIN);
    expect((await h.call('GET', '/api/orchestrator/me', { token: again })).body).toMatchObject({
      role: 'COMPLIANCE',
      staff: { role: 'COMPLIANCE' },
    });
    // back, so the other tests keep a support operator
    await h.call('PUT', `/api/orchestrator/admin/users/${staffUser}/role`, { token: admin, body: { role: 'SUPPORT' } });
    support = await h.login('+237690800001', PIN);

    const adminId = (await h.call('GET', '/api/auth/me', { token: admin })).body.id as string;
    const self = await h.call('PUT', `/api/orchestrator/admin/users/${adminId}/role`, { token: admin, body: { role: 'SUPPORT' } });
    expect(self.body.code).toBe('ROLE_CHANGE_NOT_ALLOWED');
  });

  it('customer search: exact phone, prefix, status filter, cursor pagination without gaps or repeats', async () => {
    const phones = ['+237690810001', '+237690810002', '+237690810003', '+237690810004', '+237690810005'];
    for (const phone of phones) await register(phone);
    const exact = await h.call('GET', `/api/orchestrator/admin/customers?phone=${encodeURIComponent(phones[2])}`, { token: support });
    expect(exact.body.items.map((c: { phone: string }) => c.phone)).toEqual([phones[2]]);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `q=${encodeURIComponent('+23769081')}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await h.call('GET', `/api/orchestrator/admin/customers?${query}`, { token: support });
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((c: { phone: string }) => c.phone));
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect([...seen].sort()).toEqual(phones);
    expect(seen).toEqual([...phones].reverse()); // newest first

    const frozen = await h.call('GET', '/api/orchestrator/admin/customers?status=frozen', { token: support });
    expect(frozen.body.items.every((c: { status: string }) => c.status === 'frozen')).toBe(true);
    const bad = await h.call('GET', '/api/orchestrator/admin/customers?cursor=garbage', { token: support });
    expect(bad.body.errors[0]).toMatchObject({ field: 'cursor', code: 'INVALID_CURSOR' });
    // U+0000 in a query string would reach the ILIKE as a 500: the client's 400 instead.
    const nul = await h.call('GET', '/api/orchestrator/admin/customers?q=a%00b', { token: support });
    expect([nul.status, nul.body.errors?.[0]]).toEqual([400, expect.objectContaining({ field: 'q', code: 'INVALID_CHARACTER' })]);
    const badPhone = await h.call('GET', '/api/orchestrator/admin/customers?phone=0690', { token: support });
    expect(badPhone.body.errors[0]).toMatchObject({ field: 'phone', code: 'INVALID_PHONE_FORMAT' });
  });

  it('the own profile: customers update names and email (not the phone); staff may not (no profile.update)', async () => {
    await register('+237690800030');
    const token = await h.login('+237690800030', PIN);
    const updated = await h.call('PATCH', '/api/orchestrator/me/profile', {
      token,
      body: { firstName: 'Aïssatou', email: 'a@example.cm' },
    });
    expect(updated.body).toMatchObject({ firstName: 'Aïssatou', lastName: 'Nkoulou', email: 'a@example.cm' });
    const cleared = await h.call('PATCH', '/api/orchestrator/me/profile', { token, body: { email: null } });
    expect(cleared.body.email).toBeNull();
    expect((await h.call('PATCH', '/api/orchestrator/me/profile', { token, body: { phone: '+237690000000' } })).body.code).toBe(
      'VALIDATION_ERROR',
    );
    expect((await h.call('PATCH', '/api/orchestrator/me/profile', { token, body: { firstName: ' ' } })).body.code).toBe('VALIDATION_ERROR');
    expect((await h.call('PATCH', '/api/orchestrator/me/profile', { token: support, body: { firstName: 'X' } })).body.code).toBe(
      'FORBIDDEN',
    );
  });
});
