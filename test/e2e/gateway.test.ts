import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger, internalListenerOf } from '@mm/platform';
import { authApp } from '../../apps/auth/src/auth.app';
import { ledgerWalletsApp } from '../../apps/ledger-wallets/src/ledger-wallets.app';
import { orchestratorApp } from '../../apps/orchestrator/src/orchestrator.app';
import { partnersApp } from '../../apps/partners/src/partners.app';
import { webhookDispatcherApp } from '../../apps/webhook-dispatcher/src/webhook-dispatcher.app';
import { type RunningApp, boot } from '../support/boot';
import { type TestDatabase, createTestDatabase, createTestRedis, serviceEnv } from '../support/test-env';

const REQUEST_ID = '0b6a4c1e-8d2f-4a57-9c3e-5f1d2e3a4b6c';

/** JSON bodies of this test are read loosely: the assertions are the contract. */
const json = (res: Response): Promise<any> => res.json();

/**
 * A real HTTP upstream for the failure cases: `/partners-public/hang` and `/health` never answer
 * (a hanging service), any other path answers with the request headers it received.
 */
async function testUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpServer((req, res) => {
    if (req.url?.startsWith('/partners-public/hang') || req.url === '/health') return; // never answers
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url, headers: req.headers }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** One HTTP/1.1 request with the path sent byte for byte (fetch would resolve dot segments before sending). */
function rawRequest(base: string, method: string, path: string): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path, method, headers: { 'content-type': 'application/json' } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(method === 'GET' ? undefined : '{}');
  });
}

/** A loopback port nothing listens on: a stopped upstream. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}`;
}

describe('gateway: routing table of docs/architecture.md "Processes and ports", ids downstream, upstream failures', () => {
  let db: TestDatabase;
  const redis = createTestRedis();
  const authLines: Array<Record<string, unknown>> = [];
  let auth: RunningApp;
  let partners: RunningApp;
  let ledger: RunningApp;
  let dispatcher: RunningApp;
  let gateway: RunningApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    const env = (service: Parameters<typeof serviceEnv>[0], extra: Record<string, string> = {}) => serviceEnv(service, db, redis, extra);
    const authLog = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) authLines.push(JSON.parse(line));
        done();
      },
    });
    [auth, partners, ledger, dispatcher] = await Promise.all([
      boot(authApp, env('auth', { LOG_LEVEL: 'info' }), {
        listen: true,
        logger: createLogger({ service: 'auth', level: 'info', destination: authLog }),
      }),
      boot(partnersApp, env('partners'), { listen: true }),
      boot(ledgerWalletsApp, env('ledger-wallets'), { listen: true }),
      boot(webhookDispatcherApp, env('webhook-dispatcher'), { listen: true }),
    ]);
    gateway = await boot(
      orchestratorApp,
      env('orchestrator', {
        AUTH_URL: auth.url,
        PARTNERS_URL: partners.url,
        LEDGER_URL: ledger.url,
        WEBHOOK_DISPATCHER_URL: dispatcher.url,
      }),
      { listen: true },
    );
  });

  afterAll(async () => {
    await Promise.all([gateway, auth, partners, ledger, dispatcher].filter(Boolean).map((a) => a.close()));
    await db.drop();
    await redis.flush();
  });

  const call = (path: string, init: RequestInit = {}) => fetch(`${gateway.url}${path}`, init);

  describe('routing rows', () => {
    it.each([
      '/api/auth/register',
      '/api/auth/register/merchant',
      '/api/auth/register/agent',
      '/api/auth/register/admin',
      '/api/auth/reset-pin/confirm',
    ])('POST %s is an orchestrator workflow route, not proxied to auth', async (path) => {
      const seen = authLines.length;
      const res = await call(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      // Whatever the workflow answers to an empty body, it is the orchestrator's route: auth never saw the request.
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect((await json(res)).message).not.toMatch(/^Route POST \/auth\//);
      expect(authLines.slice(seen).filter((l) => l.msg === 'request' && l.url === path.replace(/^\/api/, ''))).toEqual([]);
    });

    it('/api/auth/* is proxied to auth with the /api prefix removed', async () => {
      const res = await call('/api/auth/no-such-endpoint');
      expect(res.status).toBe(404);
      // The message is auth's own view of the path: the request reached auth as /auth/…
      expect((await json(res)).message).toBe('Route GET /auth/no-such-endpoint not found');
    });

    it('/api/partners-public/* is proxied to partners', async () => {
      const res = await call('/api/partners-public/no-such-endpoint?x=1');
      expect(res.status).toBe(404);
      expect((await json(res)).message).toBe('Route GET /partners-public/no-such-endpoint not found');
    });

    it('/api/config/* is served by the orchestrator config module', async () => {
      const res = await call('/api/config/currencies');
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({
        currencies: [
          { code: 'XAF', minorUnits: 0 },
          { code: 'XOF', minorUnits: 0 },
        ],
      });
    });

    it('everything else under /api is the orchestrator', async () => {
      const res = await call('/api/v1/no-such-endpoint');
      expect(res.status).toBe(404);
      expect((await json(res)).message).toBe('Route GET /api/v1/no-such-endpoint not found');
    });

    it('auth internal endpoints are unreachable through the gateway', async () => {
      const res = await call('/api/auth/internal/create-idp-user', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(404);
      expect((await json(res)).message).toBe('Route POST /api/auth/internal/create-idp-user not found');
    });
  });

  it('carries the request id and a gateway-made correlation id downstream, and answers with both headers', async () => {
    const clientCorrelation = '11111111-2222-4333-8444-555555555555';
    const res = await call('/api/auth/traced', { headers: { 'x-request-id': REQUEST_ID, 'x-correlation-id': clientCorrelation } });
    const body = await json(res);
    expect(res.headers.get('x-request-id')).toBe(REQUEST_ID);
    expect(body.requestId).toBe(REQUEST_ID); // written by auth: it received the id
    expect(res.headers.get('server-timing')).toMatch(/^total;dur=\d/);
    const correlationId = res.headers.get('x-correlation-id');
    expect(correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(correlationId).not.toBe(clientCorrelation); // created at the entry point
    const line = authLines.find((l) => l.requestId === REQUEST_ID && l.msg === 'request');
    expect(line).toMatchObject({ correlationId, url: '/auth/traced', status: 404 });
  });

  it('GET /api/health reports every service', async () => {
    const res = await call('/api/health');
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.status).toBe('ok');
    for (const name of ['orchestrator', 'auth', 'partners', 'ledger-wallets', 'webhook-dispatcher']) {
      expect(body.details[name]).toMatchObject({ status: 'up' });
    }
  });

  it.each(['orchestrator', 'auth', 'partners', 'ledger-wallets', 'webhook-dispatcher'])(
    '%s answers GET /health at its root with database and redis up',
    async (name) => {
      const app = { orchestrator: gateway, auth, partners, 'ledger-wallets': ledger, 'webhook-dispatcher': dispatcher }[name]!;
      const res = await fetch(`${app.url}/health`);
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(body.status).toBe('ok');
      expect(body.details.database.status).toBe('up');
      expect(body.details.redis.status).toBe('up');
      expect(res.headers.get('server-timing')).toMatch(/^total;dur=/);
    },
  );

  it.each(['orchestrator', 'auth', 'partners', 'ledger-wallets', 'webhook-dispatcher'])(
    '/hz/%s reaches that service health directly through the entry point (staging and review)',
    async (name) => {
      const res = await call(`/hz/${name}`);
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(body.status).toBe('ok');
      expect(body.details.database.status).toBe('up');
    },
  );

  it('/hz/<unknown> is 404 NOT_FOUND', async () => {
    const res = await call('/hz/mainframe');
    expect(res.status).toBe(404);
    expect((await json(res)).code).toBe('NOT_FOUND');
  });

  describe('public and internal listeners (nothing internal on the public port)', () => {
    let internal: string;
    beforeAll(() => {
      internal = internalListenerOf(gateway.app)!.url;
    });

    it('serves Prometheus metrics on the internal listener only, with a request-duration histogram by route', async () => {
      await call('/api/config/currencies');
      const res = await fetch(`${internal}/metrics`);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/config\/currencies",status="200"\} [1-9]/);
      expect(text).toMatch(/process_cpu_user_seconds_total/);
      const outside = await call('/metrics');
      expect(outside.status).toBe(404);
      expect((await json(outside)).code).toBe('NOT_FOUND');
    });

    it('publishes the public OpenAPI document at /api/openapi.json and the full one only inside', async () => {
      const pub = await call('/api/openapi.json');
      expect(pub.status).toBe(200);
      const doc = await json(pub);
      const paths = Object.keys(doc.paths);
      expect(paths).toEqual(expect.arrayContaining(['/api/health', '/api/config/currencies']));
      expect(paths.filter((p) => /^\/api\/(auth\/)?internal/i.test(p))).toEqual([]);
      expect(doc.components.securitySchemes?.serviceKey).toBeUndefined();
      expect((await call('/openapi.json')).status).toBe(404);
      const full = await fetch(`${internal}/openapi.json`);
      expect(full.status).toBe(200);
      expect((await json(full)).components.securitySchemes.serviceKey).toBeDefined();
    });

    it('keeps the correlation id of internal callers, makes a fresh one for the public', async () => {
      const correlation = '22222222-3333-4444-8555-666666666666';
      const inside = await fetch(`${internal}/api/config/currencies`, { headers: { 'x-correlation-id': correlation } });
      expect(inside.headers.get('x-correlation-id')).toBe(correlation);
      const outside = await call('/api/config/currencies', { headers: { 'x-correlation-id': correlation } });
      expect(outside.headers.get('x-correlation-id')).not.toBe(correlation);
    });

    it('answers /health on both listeners (probes) and /api/health publicly', async () => {
      expect((await call('/health')).status).toBe(200);
      expect((await fetch(`${internal}/health`)).status).toBe(200);
      expect((await call('/api/health')).status).toBe(200);
    });

    it.each([
      '/api/auth/internal/create-idp-user',
      '/api/auth/%69nternal/create-idp-user',
      '/api/auth/%2569nternal/create-idp-user',
      '/api/auth/INTERNAL/create-idp-user',
      '/api/auth//internal/create-idp-user',
      '/api/AUTH/internal/create-idp-user',
      '/api/auth/internal%2Fcreate-idp-user',
      '/api/auth%2Finternal/create-idp-user',
      '/api/auth/./internal/create-idp-user',
      '/api/auth/login/../internal/create-idp-user',
      '/api/auth/x/%2e%2e/internal/create-idp-user',
      '/api/auth/x/..%2Finternal/create-idp-user',
      '/api/partners-public/../auth/internal/create-idp-user',
      '/api/partners-public/../../auth/internal/create-idp-user',
      '/api/internal/directory/merchants/by-phone?phone=%2B237690000001',
      '/api/%69nternal/directory/merchants/by-phone',
      '/api/config/../internal/directory/merchants/by-phone',
    ])('public port: %s never reaches an internal route (4xx from the gateway, nothing upstream)', async (path) => {
      const seen = authLines.length;
      const res = await rawRequest(gateway.url, 'POST', path);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(['NOT_FOUND', 'BAD_REQUEST']).toContain(JSON.parse(res.body).code);
      // auth logs one line per request it serves: none arrived
      expect(authLines.slice(seen).filter((l) => l.msg === 'request')).toEqual([]);
    });

    it('public port: a dot segment towards a partners internal route is refused before the proxy resolves it', async () => {
      for (const path of [
        '/api/partners-public/../internal/partners/integrations',
        '/api/partners-public/%2E%2E/internal/partners/integrations',
      ]) {
        const res = await rawRequest(gateway.url, 'GET', path);
        expect(res.status).toBe(400);
        expect(JSON.parse(res.body).code).toBe('BAD_REQUEST');
      }
    });

    it('the internal listener does not proxy to auth internal routes either (the orchestrator calls them directly)', async () => {
      const seen = authLines.length;
      const res = await rawRequest(internal, 'POST', '/api/auth/%69nternal/create-idp-user');
      expect(res.status).toBe(404);
      expect(authLines.slice(seen).filter((l) => l.msg === 'request')).toEqual([]);
    });
  });

  describe('upstream failures', () => {
    let broken: RunningApp;
    let upstream: Awaited<ReturnType<typeof testUpstream>>;

    beforeAll(async () => {
      upstream = await testUpstream();
      broken = await boot(
        orchestratorApp,
        serviceEnv('orchestrator', db, redis, {
          AUTH_URL: await closedPortUrl(),
          PARTNERS_URL: upstream.url,
          LEDGER_URL: ledger.url,
          WEBHOOK_DISPATCHER_URL: dispatcher.url,
          UPSTREAM_TIMEOUT_MS: '700',
          HEALTH_TIMEOUT_MS: '500',
          HZ_ROUTES_ENABLED: 'false', // as in production
        }),
        { listen: true },
      );
    });
    afterAll(async () => {
      await broken?.close();
      await upstream?.close();
    });

    it('a stopped upstream gives 502 UPSTREAM_UNAVAILABLE at once', async () => {
      const started = Date.now();
      const res = await fetch(`${broken.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': REQUEST_ID },
        body: '{}',
      });
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(res.status).toBe(502);
      expect(await json(res)).toEqual({ code: 'UPSTREAM_UNAVAILABLE', message: 'auth is unavailable', requestId: REQUEST_ID });
      expect(res.headers.get('x-request-id')).toBe(REQUEST_ID);
      expect(res.headers.get('server-timing')).toMatch(/^total;dur=/);
    });

    it('a hanging upstream gives 504 UPSTREAM_TIMEOUT within the configured timeout', async () => {
      const started = Date.now();
      const res = await fetch(`${broken.url}/api/partners-public/hang`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"amount":1}',
      });
      const elapsed = Date.now() - started;
      expect(res.status).toBe(504);
      expect((await json(res)).code).toBe('UPSTREAM_TIMEOUT');
      // undici's timers are coarse; what matters is that it waited, then gave up long before a hang
      expect(elapsed).toBeGreaterThanOrEqual(300);
      expect(elapsed).toBeLessThan(3_000);
    });

    it('forwards ids and the client address, and never a client-supplied service key', async () => {
      const res = await fetch(`${broken.url}/api/partners-public/echo?a=1`, {
        headers: { 'x-request-id': REQUEST_ID, 'x-forwarded-for': '203.0.113.9', 'x-service-key': 'guessed-key' },
      });
      expect(res.status).toBe(200);
      const seen = await json(res);
      expect(seen.path).toBe('/partners-public/echo?a=1');
      expect(seen.headers['x-request-id']).toBe(REQUEST_ID);
      expect(seen.headers['x-correlation-id']).toBe(res.headers.get('x-correlation-id'));
      // the last entry is the peer the gateway saw; upstreams trust only that one
      expect(seen.headers['x-forwarded-for']).toBe('203.0.113.9, 127.0.0.1');
      expect(seen.headers['x-service-key']).toBeUndefined();
    });

    it('has no /hz routes when they are disabled (production)', async () => {
      const res = await fetch(`${broken.url}/hz/ledger-wallets`);
      expect(res.status).toBe(404);
    });

    it('GET /api/health is 503 and names the services that are down', async () => {
      const res = await fetch(`${broken.url}/api/health`);
      expect(res.status).toBe(503);
      const body = await json(res);
      expect(body.status).toBe('error');
      expect(body.details.auth.status).toBe('down');
      expect(body.details.partners.status).toBe('down');
      expect(body.details['ledger-wallets'].status).toBe('up');
    });
  });
});
