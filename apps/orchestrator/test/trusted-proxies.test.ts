import { type IncomingHttpHeaders, type Server, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@mm/platform';
import { orchestratorApp } from '../src/orchestrator.app';
import { OrchestratorConfig } from '../src/orchestrator.config';
import { type RunningApp, boot } from '../../../test/support/boot';
import { type TestDatabase, createTestDatabase, createTestRedis, serviceEnv } from '../../../test/support/test-env';

/**
 * Behind an ingress controller every connection comes from the controller: the client is the address
 * it appended to X-Forwarded-For, believed only from the proxies TRUSTED_PROXIES names. Observed
 * through what depends on it: the per-address PIN-reset limit (one try per address here) and the
 * X-Forwarded-For the gateway passes to auth, whose own per-address limits read its last entry.
 */
describe('TRUSTED_PROXIES: the client address behind a proxy', () => {
  const seenByAuth: IncomingHttpHeaders[] = [];
  let auth: Server;
  let db: TestDatabase;
  const redis = [createTestRedis(), createTestRedis()];
  let behindProxy: RunningApp;
  let exposed: RunningApp;

  beforeAll(async () => {
    // auth's stand-in: echoes the proxied /auth/echo, refuses every OTP the PIN reset brings
    auth = createServer((req, res) => {
      if (req.url?.startsWith('/auth/echo')) {
        seenByAuth.push(req.headers);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'OTP_INVALID', message: 'wrong code' }));
    });
    await new Promise<void>((r) => auth.listen(0, '127.0.0.1', r));
    const authUrl = `http://127.0.0.1:${(auth.address() as AddressInfo).port}`;
    db = await createTestDatabase();
    const env = (r: (typeof redis)[number], extra: Record<string, string>) =>
      serviceEnv('orchestrator', db, r, { AUTH_URL: authUrl, PIN_RESET_MAX_PER_IP_PER_HOUR: '1', ...extra });
    [behindProxy, exposed] = await Promise.all([
      boot(orchestratorApp, env(redis[0], { TRUSTED_PROXIES: '127.0.0.1' }), { listen: true }),
      boot(orchestratorApp, env(redis[1], {}), { listen: true }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([behindProxy, exposed].filter(Boolean).map((a) => a.close()));
    await new Promise((r) => auth?.close(r));
    await db?.drop();
    await Promise.all(redis.map((r) => r.flush()));
  });

  let phone = 690_930_000;
  /** A PIN reset sent from the loopback address `from` (the socket's peer), with these headers. */
  function pinReset(app: RunningApp, from: string, headers: Record<string, string>): Promise<number> {
    const url = new URL('/api/orchestrator/auth/reset-pin', app.url);
    const body = JSON.stringify({ phone: `+237${++phone}`, otp: '123456', newPin: '2580' });
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          localAddress: from,
          headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
  const limited = async (app: RunningApp, from: string, xff: string) => (await pinReset(app, from, { 'x-forwarded-for': xff })) === 429;

  it('from a trusted proxy, each client is limited at the address the proxy appended, whatever it wrote before', async () => {
    expect([
      await limited(behindProxy, '127.0.0.1', '203.0.113.7'),
      await limited(behindProxy, '127.0.0.1', '203.0.113.8'),
      // the client wrote its own entry first; the proxy appended the address it saw
      await limited(behindProxy, '127.0.0.1', '198.51.100.1, 203.0.113.7'),
      await limited(behindProxy, '127.0.0.1', '203.0.113.9'),
    ]).toEqual([false, false, true, false]);
  });

  it('a connection from an address that is not a trusted proxy is its own client: its X-Forwarded-For is ignored', async () => {
    expect([await limited(behindProxy, '127.0.0.2', '203.0.113.20'), await limited(behindProxy, '127.0.0.2', '203.0.113.21')]).toEqual([
      false,
      true,
    ]);
  });

  it('with no trusted proxy (the default), X-Forwarded-For never counts: every client behind one address shares its limit', async () => {
    expect([await limited(exposed, '127.0.0.1', '203.0.113.7'), await limited(exposed, '127.0.0.1', '203.0.113.8')]).toEqual([false, true]);
  });

  it("the gateway's X-Forwarded-For to auth ends with the client address it decided (auth limits on that last entry)", async () => {
    seenByAuth.length = 0;
    for (const app of [behindProxy, exposed]) {
      const res = await fetch(`${app.url}/api/auth/echo`, { headers: { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' } });
      expect(res.status).toBe(200);
    }
    expect(seenByAuth.map((h) => h['x-forwarded-for'])).toEqual([
      '198.51.100.1, 203.0.113.7, 203.0.113.7',
      '198.51.100.1, 203.0.113.7, 127.0.0.1',
    ]);
  });

  it('a malformed entry stops the boot, naming the variable', () => {
    const env = (value?: string) => serviceEnv('orchestrator', db, redis[0], { TRUSTED_PROXIES: value });
    expect(() => loadConfig(OrchestratorConfig, env('10.0.0.0/8, 10.0.0.0/33'))).toThrow(/TRUSTED_PROXIES entry 2 is neither/);
    expect(loadConfig(OrchestratorConfig, env(' 10.0.0.0/8 , uniquelocal,::1 ')).TRUSTED_PROXIES).toEqual([
      '10.0.0.0/8',
      'uniquelocal',
      '::1',
    ]);
    expect(loadConfig(OrchestratorConfig, env()).TRUSTED_PROXIES).toEqual([]);
  });
});
