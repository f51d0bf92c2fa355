import { randomUUID } from 'node:crypto';
import { openApiOf, undocumented } from '../../../test/support/openapi-departures';
import { type Harness, startLedger } from './ledger-harness';

describe('ledger: closing an unused wallet (registration compensation)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(() => h.close());

  const close = (ownerType: string, ownerId: string) => h.call('POST', '/v1/internal/wallets/close', { ownerType, ownerId });

  it('closes a fresh wallet, idempotently; an owner without a wallet is ABSENT', async () => {
    const ownerId = randomUUID();
    const created = await h.call('POST', '/v1/internal/wallets', { ownerType: 'USER', ownerId });
    expect(created.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const res = await close('USER', ownerId);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ walletId: created.body.id, status: 'CLOSED' });
    }
    const after = await h.call('GET', `/v1/internal/wallets/${created.body.id}`, undefined);
    expect(after.body.status).toBe('CLOSED');
    expect((await close('USER', randomUUID())).body).toEqual({ walletId: null, status: 'ABSENT' });
  });

  it('refuses a wallet money went through: 409 WALLET_NOT_EMPTY, wallet untouched', async () => {
    const ownerId = randomUUID();
    const created = await h.call('POST', '/v1/internal/wallets', { ownerType: 'MERCHANT', ownerId });
    const account = created.body.accounts.find((a: { currency: string }) => a.currency === 'XAF').id as string;
    // an entry on the account, the way the ledger's own tests arrange balances
    await h.admin.query(`UPDATE ledger.accounts SET balance = 100, available_balance = 100 WHERE id = $1`, [account]);
    const res = await close('MERCHANT', ownerId);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('WALLET_NOT_EMPTY');
    const after = await h.call('GET', `/v1/internal/wallets/${created.body.id}`, undefined);
    expect(after.body.status).toBe('ACTIVE');
  });

  it('validates the owner and needs the service key', async () => {
    expect((await close('PERSON', 'x')).body.code).toBe('VALIDATION_ERROR');
    const anonymous = await h.call(
      'POST',
      '/v1/internal/wallets/close',
      { ownerType: 'USER', ownerId: 'x' },
      { 'x-service-key': 'not-the-key' },
    );
    expect(anonymous.body.code).toBe('INVALID_SERVICE_CREDENTIALS');
  });

  it('answers exactly what its OpenAPI document says: every success body of every wallet route', async () => {
    const doc = await openApiOf(h.app.app);
    const ownerId = randomUUID();
    const answers: Array<[string, string, { status: number; body: unknown }]> = [];
    const call = async (method: string, path: string, documented: string, body?: unknown) => {
      const res = await h.call(method, path, body);
      answers.push([method, documented, res]);
      return res;
    };
    // An agent (two account types per currency, a holder name) and a user without a name (holderName null).
    const created = await call('POST', '/v1/internal/wallets', '/v1/internal/wallets', {
      ownerType: 'AGENT',
      ownerId,
      holderName: 'Awa Ndiaye',
    });
    await call('POST', '/v1/internal/wallets', '/v1/internal/wallets', { ownerType: 'AGENT', ownerId });
    await call('POST', '/v1/internal/wallets', '/v1/internal/wallets', { ownerType: 'USER', ownerId: randomUUID(), currencies: ['XOF'] });
    await call('GET', `/v1/internal/wallets?ownerType=AGENT&ownerId=${ownerId}`, '/v1/internal/wallets');
    await call('GET', `/v1/internal/wallets/${created.body.id}`, '/v1/internal/wallets/{id}');
    await call('GET', `/v1/internal/accounts/${created.body.accounts[0].id}`, '/v1/internal/accounts/{id}');
    await call('GET', '/v1/internal/technical-accounts', '/v1/internal/technical-accounts');
    await call('GET', '/v1/internal/technical-accounts?currency=XOF', '/v1/internal/technical-accounts');
    await call('POST', '/v1/internal/wallets/close', '/v1/internal/wallets/close', { ownerType: 'AGENT', ownerId });
    await call('POST', '/v1/internal/wallets/close', '/v1/internal/wallets/close', { ownerType: 'AGENT', ownerId: randomUUID() });
    expect(answers.map(([method, path, res]) => `${method} ${path} ${res.status}`)).toEqual([
      'POST /v1/internal/wallets 201',
      'POST /v1/internal/wallets 200',
      'POST /v1/internal/wallets 201',
      'GET /v1/internal/wallets 200',
      'GET /v1/internal/wallets/{id} 200',
      'GET /v1/internal/accounts/{id} 200',
      'GET /v1/internal/technical-accounts 200',
      'GET /v1/internal/technical-accounts 200',
      'POST /v1/internal/wallets/close 200',
      'POST /v1/internal/wallets/close 200',
    ]);
    expect(created.body.accounts).toHaveLength(4);
    expect((answers[6][2].body as unknown[]).length).toBeGreaterThan(0);
    expect(answers.flatMap(([method, path, res]) => undocumented(doc, method, path, res))).toEqual([]);
  });
});
