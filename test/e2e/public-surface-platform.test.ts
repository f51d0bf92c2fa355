import { request } from 'node:http';
import { Controller, Get, Module, UseGuards } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  BaseConfig,
  PlatformModule,
  ServiceKeyGuard,
  createApp,
  internalListenerOf,
  isUnder,
  loadConfig,
  normaliseRequestPath,
} from '@mm/platform';
import { callerKey } from '../support/test-env';

/** JSON bodies of this test are read loosely: the assertions are the contract. */
const json = (res: Response): Promise<any> => res.json();

/** How many times each handler really ran: a refused request must never reach one. */
const reached = { things: 0, ping: 0, secret: 0 };

@Controller('things')
class ThingsController {
  @Get()
  list(): { ok: true } {
    reached.things++;
    return { ok: true };
  }

  @Get('secret')
  @UseGuards(ServiceKeyGuard)
  @ApiSecurity('serviceKey')
  secret(): { ok: true } {
    reached.secret++;
    return { ok: true };
  }
}

@Controller('internal')
class InternalController {
  @Get('ping')
  ping(): { pong: true } {
    reached.ping++;
    return { pong: true };
  }
}

class TestConfig extends BaseConfig {}

/** A raw HTTP/1.1 GET: the path is sent byte for byte (fetch would resolve dot segments first). */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('platform: a public listener that serves only the public surface, an internal one for the rest', () => {
  let app: NestFastifyApplication;
  let publicUrl: string;
  let internalUrl: string;

  beforeAll(async () => {
    const config = loadConfig(TestConfig, { INTERNAL_SERVICE_KEY: callerKey('orchestrator'), LOG_LEVEL: 'silent' });
    @Module({ imports: [PlatformModule.forRoot({ service: 'edge', config })], controllers: [ThingsController, InternalController] })
    class TestModule {}
    app = await createApp(TestModule, {
      service: 'edge',
      config,
      globalPrefix: 'api',
      publicSurface: { isPublic: (path) => path === '/health' || (isUnder(path, '/api') && !isUnder(path, '/api/internal')) },
      internalListener: { host: '127.0.0.1', port: 0 },
    });
    await app.listen(0, '127.0.0.1');
    publicUrl = await app.getUrl();
    publicUrl = publicUrl.replace('[::1]', '127.0.0.1');
    internalUrl = internalListenerOf(app)!.url;
  });
  afterAll(() => app.close());

  it('listens on two ports', () => {
    expect(new URL(internalUrl).port).not.toBe(new URL(publicUrl).port);
  });

  it('public listener: public routes and /health work; /metrics, the full document and internal routes do not exist', async () => {
    expect((await fetch(`${publicUrl}/api/things`)).status).toBe(200);
    expect((await fetch(`${publicUrl}/health`)).status).toBe(200);
    for (const path of ['/metrics', '/openapi.json', '/api/internal/ping']) {
      const res = await fetch(`${publicUrl}${path}`);
      expect(res.status).toBe(404);
      const body = await json(res);
      expect(body).toEqual({ code: 'NOT_FOUND', message: `Route GET ${path} not found`, requestId: res.headers.get('x-request-id') });
    }
    expect(reached.ping).toBe(0);
  });

  it('public listener: /api/openapi.json is the public document (no internal path, no service-key scheme or service-key-only operation)', async () => {
    const res = await fetch(`${publicUrl}/api/openapi.json`);
    expect(res.status).toBe(200);
    const doc = await json(res);
    expect(Object.keys(doc.paths)).toEqual(['/api/things']);
    expect(doc.components.securitySchemes.serviceKey).toBeUndefined();
    expect(doc.info.title).toBe('edge (public API)');
  });

  it('internal listener: metrics, the full document and the internal routes', async () => {
    const metrics = await fetch(`${internalUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/things",status="200"\} [1-9]/);
    const doc = await json(await fetch(`${internalUrl}/openapi.json`));
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/things', '/api/things/secret', '/api/internal/ping']));
    expect(doc.components.securitySchemes.serviceKey).toBeDefined();
    const ping = await fetch(`${internalUrl}/api/internal/ping`);
    expect(ping.status).toBe(200);
    expect(ping.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect((await fetch(`${internalUrl}/health`)).status).toBe(200);
  });

  it.each([
    '/api/%69nternal/ping',
    '/api/%2569nternal/ping',
    '/api/%252569nternal/ping',
    '/api/internal%2Fping',
    '/api%2Finternal%2Fping',
    '/API/INTERNAL/ping',
    '/api/Internal/Ping',
    '/api//internal/ping',
    '//api/internal/ping',
    '/api/internal/ping/',
    '/api/internal/ping?x=1',
    '/api/internal/ping#frag',
    '/api/./internal/ping',
    '/api/things/../internal/ping',
    '/api/things/%2e%2e/internal/ping',
    '/api/things/%2E%2E%2Finternal/ping',
    '/api/things/..%2Finternal/ping',
    '/api/things/.%2e/internal/ping',
    '/api\\internal\\ping',
    '/api/%5cinternal/ping',
    '/api/%E0%A4%A/ping',
  ])('public listener refuses the variant %s with a 4xx and never runs the internal handler', async (path) => {
    const before = reached.ping;
    const res = await rawGet(publicUrl, path);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(JSON.parse(res.body).code).toMatch(/^(NOT_FOUND|BAD_REQUEST)$/);
    expect(reached.ping).toBe(before);
  });

  it('in-process requests (app.inject, tests) are not restricted', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/internal/ping' });
    expect(res.statusCode).toBe(200);
  });

  describe('normaliseRequestPath', () => {
    it.each([
      ['/api/%69nternal/x', '/api/internal/x'],
      ['/API//Internal///x/', '/api/internal/x'],
      ['/api/internal%252Fx?y=1', '/api/internal/x'],
      ['/', '/'],
    ])('%s → %s', (input, expected) => {
      expect(normaliseRequestPath(input)).toEqual({ ok: true, path: expected });
    });

    it.each([
      ['/a/../b', 'dot-segment'],
      ['/a/%2E/b', 'dot-segment'],
      ['/a\\b', 'backslash'],
      ['/a/%zz', 'undecodable'],
      ['/a/%25252525', 'undecodable'],
    ])('refuses %s (%s)', (input, reason) => {
      expect(normaliseRequestPath(input)).toEqual({ ok: false, reason });
    });
  });
});
