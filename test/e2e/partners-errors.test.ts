import http from 'node:http';
import { callerKey } from '../support/test-env';
import { generateApiKey } from '../../apps/partners/src/keys/api-key';
import { mannWhitneyZ, median } from '../../apps/partners/test/support/stats';
import { type Answer, type Json, PartnersPlatform } from './partners-platform';
import { E2E_ADMIN, type TestMerchant, createMerchant } from './partners-support';

/**
 * Every row of the partner API's error table (docs/partners.md "7. All error codes"), through the
 * gateway, with its HTTP status and its code (the specific code of a field fault is the `code` of that
 * field's `errors[]` entry under the top-level VALIDATION_ERROR: the rule documented on POST
 * /partners-public/orders). Then anti-enumeration of connection requests as a partner sees it from
 * outside.
 */
describe('partner API error table (docs/partners.md "7. All error codes") through the gateway', () => {
  const p = new PartnersPlatform();
  let admin: string;
  let integration: Json;
  let key: string;
  let merchant: TestMerchant;
  let merchantToken: string;
  let connectionId: string;

  beforeAll(async () => {
    await p.start({ PARTNERS_CONNECTION_REQUEST_MIN_MS: '40' });
    admin = await p.login(E2E_ADMIN.phone, E2E_ADMIN.pin);
    integration = (
      await p.call('POST', '/api/admin/partners/integrations', {
        token: admin,
        body: { name: 'Errors POS', technicalContactEmail: 'tech@pos.example', webhookUrl: p.receiver.url },
      })
    ).body;
    key = integration.apiKeys.live.key;
    merchant = await createMerchant(p.sql, { auth: p.auth.url }, '+237690888001');
    merchantToken = await p.login(merchant.phone, merchant.pin);
    connectionId = (
      await p.call('POST', '/api/partners-public/connections/request', {
        key,
        body: { merchantPhone: merchant.phone, scopes: ['orders.write'] },
      })
    ).body.connectionId;
    await p.call('POST', `/api/merchant/connections/${connectionId}/accept`, { token: merchantToken });
  }, 60_000);
  afterAll(() => p.stop());

  const order = (body: Record<string, unknown>, k = key) =>
    p.call('POST', '/api/partners-public/orders', { key: k, body: { merchantId: merchant.merchantId, amount: 100, ...body } });
  const expectError = (res: Answer, status: number, code: string) => {
    expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
    expect(res.body).toEqual(expect.objectContaining({ message: expect.any(String), requestId: res.headers.get('x-request-id') }));
  };
  const expectFieldError = (res: Answer, field: string, code: string) => {
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors).toContainEqual({ field, code, message: expect.any(String) });
  };

  it('401 INVALID_INTEGRATION_CREDENTIALS: bearer missing, malformed, or key revoked', async () => {
    expectError(await p.call('GET', '/api/partners-public/connections'), 401, 'INVALID_INTEGRATION_CREDENTIALS');
    expectError(
      await p.call('GET', '/api/partners-public/connections', { key: 'svc_sk_live_nope' }),
      401,
      'INVALID_INTEGRATION_CREDENTIALS',
    );
    expectError(
      await p.call('GET', '/api/partners-public/connections', { key: generateApiKey('live').key }),
      401,
      'INVALID_INTEGRATION_CREDENTIALS',
    );
    const extra = await p.call('POST', `/api/admin/partners/integrations/${integration.integration.id}/keys`, {
      token: admin,
      body: { mode: 'live' },
    });
    await p.call('POST', `/api/admin/partners/integrations/${integration.integration.id}/keys/${extra.body.id}/revoke`, { token: admin });
    expectError(await p.call('GET', '/api/partners-public/connections', { key: extra.body.key }), 401, 'INVALID_INTEGRATION_CREDENTIALS');
  });

  it('401 INTEGRATION_REVOKED: whole integration revoked', async () => {
    const other = await p.call('POST', '/api/admin/partners/integrations', {
      token: admin,
      body: { name: 'Revoked POS', technicalContactEmail: 'tech@pos.example', webhookUrl: p.receiver.url },
    });
    await p.call('POST', `/api/admin/partners/integrations/${other.body.integration.id}/revoke`, { token: admin });
    expectError(await p.call('GET', '/api/partners-public/connections', { key: other.body.apiKeys.live.key }), 401, 'INTEGRATION_REVOKED');
  });

  it('403 NO_ACTIVE_CONNECTION and 403 MISSING_SCOPE', async () => {
    expectError(await order({ merchantId: '00000000-0000-4000-8000-000000000000' }), 403, 'NO_ACTIVE_CONNECTION');
    const readOnly = await createMerchant(p.sql, { auth: p.auth.url }, '+237690888002');
    const req = await p.call('POST', '/api/partners-public/connections/request', {
      key,
      body: { merchantPhone: readOnly.phone, scopes: ['orders.read'] },
    });
    await p.call('POST', `/api/merchant/connections/${req.body.connectionId}/accept`, {
      token: await p.login(readOnly.phone, readOnly.pin),
    });
    expectError(await order({ merchantId: readOnly.merchantId }), 403, 'MISSING_SCOPE');
  });

  it('400 VALIDATION_ERROR: amount 0 or less, ttlSeconds outside 60..900, merchantId not a UUID, unknown scope', async () => {
    expectFieldError(await order({ amount: 0 }), 'amount', 'INVALID_AMOUNT');
    expectFieldError(await order({ amount: -1 }), 'amount', 'INVALID_AMOUNT');
    expectFieldError(await order({ ttlSeconds: 30 }), 'ttlSeconds', 'INVALID_TTL');
    expectFieldError(await order({ ttlSeconds: 1200 }), 'ttlSeconds', 'TTL_TOO_LONG');
    expectFieldError(await order({ merchantId: 'm-42' }), 'merchantId', 'INVALID_UUID');
    const scope = await p.call('POST', '/api/partners-public/connections/request', {
      key,
      body: { merchantPhone: '+237690888003', scopes: ['orders.refund'] },
    });
    expectFieldError(scope, 'scopes', 'INVALID_SCOPE');
  });

  it('400 INVALID_PHONE_FORMAT: merchantPhone not valid E.164', async () => {
    for (const merchantPhone of ['0690888001', '+237 690 888 001', '+0237690888001', '237690888001']) {
      expectFieldError(
        await p.call('POST', '/api/partners-public/connections/request', { key, body: { merchantPhone, scopes: ['orders.write'] } }),
        'merchantPhone',
        'INVALID_PHONE_FORMAT',
      );
    }
  });

  it('400 INVALID_AMOUNT: amount not an integer, or 0 or less', async () => {
    for (const amount of [1.5, '100', 0, -100, null]) expectFieldError(await order({ amount }), 'amount', 'INVALID_AMOUNT');
  });

  it('400 INVALID_TTL: ttlSeconds below 60 — and 400 TTL_TOO_LONG: above 900', async () => {
    for (const ttlSeconds of [59, 1, 0, -60]) expectFieldError(await order({ ttlSeconds }), 'ttlSeconds', 'INVALID_TTL');
    for (const ttlSeconds of [901, 3600]) expectFieldError(await order({ ttlSeconds }), 'ttlSeconds', 'TTL_TOO_LONG');
    expect((await order({ ttlSeconds: 60 })).status).toBe(201);
    expect((await order({ ttlSeconds: 900 })).status).toBe(201);
  });

  it('409 CONFLICT: accept an active connection, revoke an expired one', async () => {
    expectError(await p.call('POST', `/api/merchant/connections/${connectionId}/accept`, { token: merchantToken }), 409, 'CONFLICT');
    const late = await createMerchant(p.sql, { auth: p.auth.url }, '+237690888004');
    const req = await p.call('POST', '/api/partners-public/connections/request', {
      key,
      body: { merchantPhone: late.phone, scopes: ['orders.write'] },
    });
    await p.sql.query(`UPDATE partners.connections SET pending_expires_at = now() - interval '1 second' WHERE id = $1`, [
      req.body.connectionId,
    ]);
    expectError(await p.call('POST', `/api/partners-public/connections/${req.body.connectionId}/revoke`, { key }), 409, 'CONFLICT');
  });

  it('404 CONNECTION_NOT_FOUND: unknown connection or one owned by another integration (indistinguishable)', async () => {
    const other = await p.call('POST', '/api/admin/partners/integrations', {
      token: admin,
      body: { name: 'Other POS', technicalContactEmail: 'tech@pos.example', webhookUrl: p.receiver.url },
    });
    const answers = await Promise.all([
      p.call('GET', `/api/partners-public/connections/${connectionId}`, { key: other.body.apiKeys.live.key }),
      p.call('GET', '/api/partners-public/connections/00000000-0000-4000-8000-000000000000', { key }),
      p.call('GET', '/api/partners-public/connections/not-a-uuid', { key }),
    ]);
    for (const res of answers) {
      expectError(res, 404, 'CONNECTION_NOT_FOUND');
      expect(Object.keys(res.body).sort()).toEqual(['code', 'message', 'requestId']);
      expect(res.body.message).toBe(answers[0].body.message);
    }
  });

  it('the partners internal API is out of reach through the gateway, whatever the path tricks (even with the service key)', async () => {
    const raw = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const url = new URL(p.gateway.url);
        const req = http.request(
          { host: url.hostname, port: url.port, path, method: 'GET', headers: { 'x-service-key': callerKey('orchestrator') } },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    for (const path of [
      '/api/partners-public/../internal/partners/integrations',
      '/api/partners-public/%2e%2e/internal/partners/integrations',
      '/api/partners-public/..%2finternal/partners/integrations',
      '/api/partners-public/%2E%2E%2Finternal%2Fpartners%2Fintegrations',
      '/api/internal/partners/integrations',
    ]) {
      const res = await raw(path);
      expect({ path, refused: res.status >= 400 && res.status < 500 }).toEqual({ path, refused: true });
      expect(res.body).not.toContain('technicalContactEmail');
    }
  });

  it('anti-enumeration: a known and an unknown merchant phone get the same status and body keys, and timings that cannot be told apart (|z| < 3.29)', async () => {
    const known: number[] = [];
    const unknown: number[] = [];
    const phones: string[] = [];
    for (let i = 0; i < 40; i++) phones.push((await createMerchant(p.sql, {}, `+23769100${String(i).padStart(4, '0')}`)).phone);
    for (let i = 0; i < 40; i++) {
      for (const kind of i % 2 ? ['known', 'unknown'] : ['unknown', 'known']) {
        const merchantPhone = kind === 'known' ? phones[i] : `+23769200${String(i).padStart(4, '0')}`;
        const t0 = performance.now();
        const res = await p.call('POST', '/api/partners-public/connections/request', {
          key,
          body: { merchantPhone, scopes: ['orders.write'] },
        });
        (kind === 'known' ? known : unknown).push(performance.now() - t0);
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual(['alreadyExisted', 'connectionId', 'expiresAt', 'status']);
        expect(res.body).toMatchObject({ status: 'pending', alreadyExisted: false });
      }
    }
    expect(mannWhitneyZ(known, unknown)).toBeLessThan(3.29);
    expect(Math.abs(median(known) - median(unknown))).toBeLessThan(Math.max(3, 0.3 * median(known)));
  }, 60_000);
});
