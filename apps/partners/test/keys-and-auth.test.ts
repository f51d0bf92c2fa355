import { DataSource } from 'typeorm';
import { generateApiKey } from '../src/keys/api-key';
import { type PartnersHarness, startPartners } from './support/partners-harness';

const LIST = '/partners-public/connections';

describe('partners: API keys, authentication, modes, rate limit', () => {
  let h: PartnersHarness;

  beforeAll(async () => {
    h = await startPartners({ PARTNERS_RATE_LIMIT_MAX: '20', PARTNERS_RATE_LIMIT_WINDOW_SEC: '2' });
  });
  afterAll(() => h.close());

  it('creating an integration shows one live and one test key and both webhook secrets, once', async () => {
    const created = await h.integration();
    expect(created.apiKeys.live.key).toMatch(/^svc_sk_live_[0-9A-Za-z]{49}$/);
    expect(created.apiKeys.test.key).toMatch(/^svc_sk_test_[0-9A-Za-z]{49}$/);
    expect(created.apiKeys.live).toMatchObject({
      mode: 'live',
      status: 'active',
      hint: `svc_sk_live_…${created.apiKeys.live.key.slice(-4)}`,
    });
    expect(created.webhookSecrets.live).not.toBe(created.webhookSecrets.test);

    const listed = await h.internal('GET', `/internal/partners/integrations/${created.integration.id}/keys`);
    expect(listed.status).toBe(200);
    expect(listed.body).toHaveLength(2);
    expect(listed.text).not.toContain(created.apiKeys.live.key);
    expect(listed.body[0]).not.toHaveProperty('key');

    // Only the hash is stored: no column of the table holds the key.
    const { rows } = await h.admin.query(`SELECT to_jsonb(k)::text AS row FROM partners.api_keys k WHERE integration_id = $1`, [
      created.integration.id,
    ]);
    for (const { row } of rows) expect(row).not.toContain(created.apiKeys.live.key.slice(12, 40));
  });

  it('a valid key authenticates; every answer carries the standard headers', async () => {
    const { apiKeys } = await h.integration();
    const ok = await h.call('GET', LIST, { key: apiKeys.live.key });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ data: [], nextCursor: null });
    for (const res of [ok, await h.call('GET', LIST)]) {
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get('server-timing')).toMatch(/^total;dur=\d+(\.\d+)?$/);
    }
    expect(ok.headers.get('ratelimit-limit')).toBe('20');
  });

  it.each([
    ['no Authorization header', undefined],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['a bearer that is not a key', 'Bearer hello'],
    ['a truncated key', 'TRUNCATE'],
    ['a key with one character changed', 'TYPO'],
    ['a well-formed key this platform never issued (another environment)', 'FOREIGN'],
  ])('%s → 401 INVALID_INTEGRATION_CREDENTIALS', async (_label, auth) => {
    const { apiKeys } = await h.integration();
    const key = apiKeys.live.key;
    const header =
      auth === 'TRUNCATE'
        ? `Bearer ${key.slice(0, -3)}`
        : auth === 'TYPO'
          ? `Bearer ${key.slice(0, 20)}${key[20] === 'a' ? 'b' : 'a'}${key.slice(21)}`
          : auth === 'FOREIGN'
            ? `Bearer ${generateApiKey('live').key}`
            : auth;
    const res = await h.call('GET', LIST, { headers: header === undefined ? {} : { authorization: header } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      code: 'INVALID_INTEGRATION_CREDENTIALS',
      message: expect.any(String),
      requestId: res.headers.get('x-request-id'),
    });
  });

  it('a key with a bad checksum is refused before any database lookup', async () => {
    const { apiKeys } = await h.integration();
    const key = apiKeys.live.key;
    const typo = `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;
    const db = h.partners.app.get(DataSource);
    const spy = jest.spyOn(db, 'query');
    try {
      const res = await h.call('GET', LIST, { key: typo });
      expect(res.status).toBe(401);
      // Only the key lookups count: the event relay polls partners.events on its own timer, and a
      // fresh-clone CI run once saw its poll land during the request.
      const keyLookups = () => spy.mock.calls.filter(([sql]) => String(sql).includes('partners.api_keys'));
      expect(keyLookups()).toEqual([]);
      // The filter does see the lookup a well-formed key causes: the check above can fail.
      expect((await h.call('GET', LIST, { key })).status).toBe(200);
      expect(keyLookups().length).toBeGreaterThan(0);
    } finally {
      spy.mockRestore();
    }
  });

  it('a revoked key gets 401 INVALID_INTEGRATION_CREDENTIALS at once; the other keys keep working', async () => {
    const { integration, apiKeys } = await h.integration();
    const extra = await h.internal('POST', `/internal/partners/integrations/${integration.id}/keys`, {
      mode: 'live',
      createdBy: 'admin-test',
    });
    expect(extra.status).toBe(201);
    const revoked = await h.internal('POST', `/internal/partners/integrations/${integration.id}/keys/${apiKeys.live.id}/revoke`);
    expect(revoked.body).toMatchObject({ id: apiKeys.live.id, status: 'revoked' });
    expect((await h.call('GET', LIST, { key: apiKeys.live.key })).body.code).toBe('INVALID_INTEGRATION_CREDENTIALS');
    expect((await h.call('GET', LIST, { key: extra.body.key })).status).toBe(200);
  });

  it('rotation issues a new key and keeps the old one valid for the chosen overlap only', async () => {
    const { integration, apiKeys } = await h.integration();
    const path = `/internal/partners/integrations/${integration.id}/keys/${apiKeys.live.id}/rotate`;
    const rotated = await h.internal('POST', path, { overlapSeconds: 3600, createdBy: 'admin-test' });
    expect(rotated.status).toBe(201);
    expect(rotated.body.key).toMatch(/^svc_sk_live_/);
    expect((await h.call('GET', LIST, { key: apiKeys.live.key })).status).toBe(200);
    expect((await h.call('GET', LIST, { key: rotated.body.key })).status).toBe(200);
    const keys = (await h.internal('GET', `/internal/partners/integrations/${integration.id}/keys`)).body;
    expect(keys.find((k: { id: string }) => k.id === apiKeys.live.id)).toMatchObject({ status: 'expiring' });

    // The overlap ends: the old key stops, the new one goes on.
    await h.admin.query(`UPDATE partners.api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [apiKeys.live.id]);
    expect((await h.call('GET', LIST, { key: apiKeys.live.key })).body.code).toBe('INVALID_INTEGRATION_CREDENTIALS');
    expect((await h.call('GET', LIST, { key: rotated.body.key })).status).toBe(200);
    // An expired key cannot be rotated again.
    expect((await h.internal('POST', path, { createdBy: 'admin-test' })).body.code).toBe('CONFLICT');

    const immediate = await h.internal('POST', `/internal/partners/integrations/${integration.id}/keys/${rotated.body.id}/rotate`, {
      overlapSeconds: 0,
      createdBy: 'admin-test',
    });
    expect((await h.call('GET', LIST, { key: rotated.body.key })).body.code).toBe('INVALID_INTEGRATION_CREDENTIALS');
    expect((await h.call('GET', LIST, { key: immediate.body.key })).status).toBe(200);
  });

  it('a revoked integration answers 401 INTEGRATION_REVOKED to its keys and its open connections are revoked by admin', async () => {
    const { integration, apiKeys } = await h.integration();
    h.directory.add('+237650000123');
    const req = await h.call('POST', '/partners-public/connections/request', {
      key: apiKeys.live.key,
      body: { merchantPhone: '+237650000123', scopes: ['orders.write'] },
    });
    const revoked = await h.internal('POST', `/internal/partners/integrations/${integration.id}/revoke`, { actorId: 'admin-test' });
    expect(revoked.body).toMatchObject({ status: 'revoked', revokedAt: expect.any(String) });
    for (const key of [apiKeys.live.key, apiKeys.test.key]) {
      const res = await h.call('GET', LIST, { key });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('INTEGRATION_REVOKED');
    }
    const { rows } = await h.admin.query(`SELECT status, revoked_by FROM partners.connections WHERE id = $1`, [req.body.connectionId]);
    expect(rows[0]).toEqual({ status: 'revoked', revoked_by: 'admin' });
  });

  it('a test key sees only test-mode data and a live key only live data', async () => {
    const { apiKeys } = await h.integration();
    h.directory.add('+237650000456');
    const live = await h.call('POST', '/partners-public/connections/request', {
      key: apiKeys.live.key,
      body: { merchantPhone: '+237650000456', scopes: ['orders.write'] },
    });
    const test = await h.call('POST', '/partners-public/connections/request', {
      key: apiKeys.test.key,
      body: { merchantPhone: '+237650000456', scopes: ['orders.write'] },
    });
    expect(live.body.connectionId).not.toBe(test.body.connectionId);
    expect(test.body.alreadyExisted).toBe(false);
    expect((await h.call('GET', `${LIST}/${live.body.connectionId}`, { key: apiKeys.test.key })).body.code).toBe('CONNECTION_NOT_FOUND');
    expect((await h.call('GET', `${LIST}/${test.body.connectionId}`, { key: apiKeys.live.key })).body.code).toBe('CONNECTION_NOT_FOUND');
    expect((await h.call('GET', `${LIST}/${test.body.connectionId}`, { key: apiKeys.test.key })).body).toMatchObject({ livemode: false });
    const liveList = await h.call('GET', LIST, { key: apiKeys.live.key });
    expect(liveList.body.data.map((c: { id: string }) => c.id)).toEqual([live.body.connectionId]);
  });

  it('per-key sliding window: the 21st request in 2 s is 429 RATE_LIMITED with Retry-After; another key is unaffected', async () => {
    const { apiKeys } = await h.integration();
    const answers = await Promise.all(Array.from({ length: 24 }, () => h.call('GET', LIST, { key: apiKeys.live.key })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(4);
    for (const res of limited) {
      expect(res.body.code).toBe('RATE_LIMITED');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(2);
      expect(res.headers.get('ratelimit-remaining')).toBe('0');
    }
    expect((await h.call('GET', LIST, { key: apiKeys.test.key })).status).toBe(200);
    // Once the window has slid past the burst, the key gets through again.
    await new Promise((r) => setTimeout(r, 2_100));
    expect((await h.call('GET', LIST, { key: apiKeys.live.key })).status).toBe(200);
  });

  it('admin operations on unknown ids are 404 with stable codes', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await h.internal('GET', `/internal/partners/integrations/${unknown}`)).body.code).toBe('INTEGRATION_NOT_FOUND');
    expect((await h.internal('GET', `/internal/partners/integrations/not-a-uuid`)).body.code).toBe('INTEGRATION_NOT_FOUND');
    const { integration } = await h.integration();
    expect((await h.internal('POST', `/internal/partners/integrations/${integration.id}/keys/${unknown}/revoke`)).body.code).toBe(
      'API_KEY_NOT_FOUND',
    );
    expect((await h.internal('POST', `/internal/partners/integrations/${unknown}/keys`, { mode: 'live', createdBy: 'x' })).body.code).toBe(
      'INTEGRATION_NOT_FOUND',
    );
    expect(
      (
        await h.internal('POST', `/internal/partners/integrations`, {
          name: 'x',
          technicalContactEmail: 'nope',
          webhookUrl: 'ftp://x',
          createdBy: 'x',
        })
      ).body,
    ).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: expect.arrayContaining([
        expect.objectContaining({ field: 'technicalContactEmail', code: 'INVALID_EMAIL' }),
        expect.objectContaining({ field: 'webhookUrl', code: 'INVALID_WEBHOOK_URL' }),
      ]),
    });
  });

  it('rotating a webhook secret hands out a new one and changing the URL keeps the secret', async () => {
    const { integration } = await h.integration();
    const rotated = await h.internal('POST', `/internal/partners/integrations/${integration.id}/webhook-secret/rotate`, { mode: 'test' });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ mode: 'test', secret: expect.any(String), previousSecretExpiresAt: expect.any(String) });
    const moved = await h.internal('PUT', `/internal/partners/integrations/${integration.id}/webhook-endpoint`, {
      mode: 'live',
      url: 'https://pos.example/hooks2',
    });
    expect(moved.body).toEqual({ mode: 'live', url: 'https://pos.example/hooks2', status: 'enabled' });
  });
});
