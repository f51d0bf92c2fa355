import { PlatformHarness } from '../../apps/orchestrator/test/platform-harness';
import { callerKey } from '../support/test-env';

const PIN = '2580';
const person = { firstName: 'Awa', lastName: 'Nkoulou', countryCode: 'CM' };

describe('registration journeys through the gateway (real auth and ledger)', () => {
  const h = new PlatformHarness();
  beforeAll(() => h.start());
  afterAll(() => h.stop());

  async function wallet(walletId: string) {
    const res = await fetch(`${h.ledger.url}/v1/internal/wallets/${walletId}`, {
      headers: { 'x-service-key': callerKey('orchestrator') },
    });
    return (await res.json()) as { status: string; accounts: Array<{ currency: string; accountType: string; balance: number }> };
  }

  it('an end user registers, signs in, sees the CUSTOMER role and a wallet with XAF and XOF accounts', async () => {
    const phone = '+237690200001';
    const res = await h.call('POST', '/api/orchestrator/auth/register', { body: { phone, pin: PIN, ...person, email: 'awa@example.cm' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ role: 'CUSTOMER', phone });
    expect(Object.keys(res.body.accounts).sort()).toEqual(['XAF', 'XOF']);

    const token = await h.login(phone, PIN);
    const me = await h.call('GET', '/api/auth/me', { token });
    expect(me.body).toMatchObject({ id: res.body.userId, roles: ['CUSTOMER'], status: 'ACTIVE' });

    const own = await h.call('GET', '/api/orchestrator/me/wallet', { token });
    expect(own.status).toBe(200);
    expect(own.body.walletId).toBe(res.body.walletId);
    expect(own.body.balances.map((b: { currency: string; balance: number }) => [b.currency, b.balance]).sort()).toEqual([
      ['XAF', 0],
      ['XOF', 0],
    ]);
    const ledgerWallet = await wallet(res.body.walletId);
    expect(ledgerWallet.status).toBe('ACTIVE');
    expect(ledgerWallet.accounts.map((a) => `${a.accountType}:${a.currency}`).sort()).toEqual(['customer:XAF', 'customer:XOF']);

    const profile = await h.call('GET', '/api/orchestrator/me', { token });
    expect(profile.body).toMatchObject({
      role: 'CUSTOMER',
      customer: { phone, status: 'active', kycTier: 'TIER_1', email: 'awa@example.cm' },
    });
  });

  it('a merchant registers, is in the directory, reads its record and balances', async () => {
    const phone = '+237690200002';
    const res = await h.call('POST', '/api/orchestrator/auth/register/merchant', {
      body: { phone, pin: PIN, ...person, businessName: 'Boulangerie du Centre', category: 'FOOD_AND_DRINK' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ role: 'MERCHANT', merchantId: expect.any(String) });
    const token = await h.login(phone, PIN);
    expect((await h.call('GET', '/api/auth/me', { token })).body.roles).toEqual(['MERCHANT']);
    const self = await h.call('GET', '/api/orchestrator/merchants/me', { token });
    expect(self.status).toBe(200);
    expect(self.body).toMatchObject({ merchantId: res.body.merchantId, businessName: 'Boulangerie du Centre', category: 'FOOD_AND_DRINK' });
    expect(self.body.balances.map((b: { accountType: string; currency: string }) => `${b.accountType}:${b.currency}`).sort()).toEqual([
      'merchant:XAF',
      'merchant:XOF',
    ]);
    const byPhone = await h.internal('GET', `/api/internal/directory/merchants/by-phone?phone=${encodeURIComponent(phone)}`);
    expect(byPhone.body).toEqual({
      merchantId: res.body.merchantId,
      businessName: 'Boulangerie du Centre',
      phone,
      status: 'active',
      walletId: res.body.walletId,
      accounts: res.body.accounts,
    });
    expect((await h.internal('GET', `/api/internal/directory/merchants/${res.body.merchantId}`)).body).toEqual(byPhone.body);
  });

  it('an agent registers with float and commission accounts in both currencies; a master agent lists its agents', async () => {
    const masterPhone = '+237690200003';
    const master = await h.call('POST', '/api/orchestrator/auth/register/agent', { body: { phone: masterPhone, pin: PIN, ...person } });
    expect(master.status).toBe(201);
    expect(master.body.agentCode).toMatch(/^AG\d{8}$/);
    expect(Object.keys(master.body.commissionAccounts).sort()).toEqual(['XAF', 'XOF']);
    const admin = await h.adminToken();
    const promoted = await h.call('PUT', `/api/orchestrator/admin/users/${master.body.userId}/role`, {
      token: admin,
      body: { role: 'MASTER_AGENT' },
    });
    expect(promoted.body).toEqual({ userId: master.body.userId, from: 'AGENT', role: 'MASTER_AGENT' });

    const agentPhone = '+237690200004';
    const agent = await h.call('POST', '/api/orchestrator/auth/register/agent', {
      body: { phone: agentPhone, pin: PIN, ...person, masterAgentCode: master.body.agentCode },
    });
    expect(agent.status).toBe(201);
    const agentToken = await h.login(agentPhone, PIN);
    expect((await h.call('GET', '/api/auth/me', { token: agentToken })).body.roles).toEqual(['AGENT']);
    const self = await h.call('GET', '/api/orchestrator/agents/me', { token: agentToken });
    expect(self.body).toMatchObject({ agentId: agent.body.agentId, agentCode: agent.body.agentCode });
    expect(self.body.float.map((b: { currency: string }) => b.currency).sort()).toEqual(['XAF', 'XOF']);
    expect(self.body.commission.map((b: { currency: string }) => b.currency).sort()).toEqual(['XAF', 'XOF']);

    const masterToken = await h.login(masterPhone, PIN);
    expect((await h.call('GET', '/api/auth/me', { token: masterToken })).body.roles).toEqual(['MASTER_AGENT']);
    const network = await h.call('GET', '/api/orchestrator/agents/me/agents', { token: masterToken });
    expect(network.body.items.map((a: { agentId: string }) => a.agentId)).toEqual([agent.body.agentId]);

    // the master agent's organisation, with its corporate wallet
    const org = await h.call('POST', '/api/orchestrator/admin/organisations', {
      token: admin,
      body: { name: 'Réseau Awa SARL', masterAgentCode: master.body.agentCode },
    });
    expect(org.status).toBe(201);
    expect(Object.keys(org.body.accounts).sort()).toEqual(['XAF', 'XOF']);
    expect((await wallet(org.body.walletId)).accounts.map((a) => a.accountType)).toEqual(['organisation', 'organisation']);
    expect((await h.call('GET', '/api/orchestrator/agents/me', { token: masterToken })).body.organisationId).toBe(org.body.organisationId);
    const notMaster = await h.call('POST', '/api/orchestrator/admin/organisations', {
      token: admin,
      body: { name: 'X', masterAgentCode: agent.body.agentCode },
    });
    expect([notMaster.status, notMaster.body.code]).toEqual([422, 'NOT_A_MASTER_AGENT']);
  });

  it('an administrator registers another administrator; nobody else may', async () => {
    const body = { phone: '+237690200005', pin: PIN, ...person };
    expect((await h.call('POST', '/api/orchestrator/auth/register/admin', { body })).body.code).toBe('UNAUTHORIZED');
    await h.call('POST', '/api/orchestrator/auth/register', { body: { ...body, phone: '+237690200006' } });
    const customer = await h.login('+237690200006', PIN);
    expect((await h.call('POST', '/api/orchestrator/auth/register/admin', { token: customer, body })).body.code).toBe('FORBIDDEN');
    const res = await h.call('POST', '/api/orchestrator/auth/register/admin', { token: await h.adminToken(), body });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ role: 'ADMIN', staffId: expect.any(String) });
    expect(res.body.walletId).toBeUndefined();
    const token = await h.login(body.phone, PIN);
    expect((await h.call('GET', '/api/auth/me', { token })).body.roles).toEqual(['ADMIN']);
  });

  it('the deprecated paths run the same workflow and say so', async () => {
    const res = await h.call('POST', '/api/auth/register', { body: { phone: '+237690200007', pin: PIN, ...person } });
    expect(res.status).toBe(201);
    expect(res.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(res.headers.get('link')).toBe('</api/orchestrator/auth/register>; rel="successor-version"');
    expect(res.body.walletId).toEqual(expect.any(String));
    const refused = await h.call('POST', '/api/auth/register/admin', { body: {} });
    expect(refused.body.code).toBe('UNAUTHORIZED');
    expect(refused.headers.get('deprecation')).toMatch(/^@\d+$/);
  });

  it('the welcome SMS goes out through the outbox relay', async () => {
    const phone = '+237690200008';
    await h.call('POST', '/api/orchestrator/auth/register', { body: { phone, pin: PIN, ...person } });
    let messages: Array<{ text: string }> = [];
    for (let i = 0; i < 50 && messages.length === 0; i++) {
      messages = (await h.call('GET', `/api/dev/sms?phone=${encodeURIComponent(phone)}`)).body.messages;
      if (messages.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(messages[0].text).toContain('Welcome Awa');
    expect(await h.count(`SELECT count(*) n FROM orchestrator.sms_outbox WHERE to_phone = $1 AND status = 'sent'`, [phone])).toBe(1);
  });
});
