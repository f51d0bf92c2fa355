import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { orchestratorApp } from '../../apps/orchestrator/src/orchestrator.app';
import { registerConsole } from '../../apps/orchestrator/src/gateway/console-assets';
import { type RunningApp, boot } from '../support/boot';
import { type TestDatabase, createTestDatabase, createTestRedis, serviceEnv } from '../support/test-env';

/**
 * The console as a browser gets it from the gateway's public listener: the page and its hashed
 * bundles from dist/console (written by `npm run build`, which `npm test` runs first), under a
 * strict Content-Security-Policy, same origin as /api and nowhere in the public OpenAPI document.
 */
const built = join(__dirname, '../../dist/console');

describe('the console served by the gateway', () => {
  let db: TestDatabase;
  const redis = createTestRedis();
  let gateway: RunningApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    gateway = await boot(orchestratorApp, serviceEnv('orchestrator', db, redis), { listen: true });
  });
  afterAll(async () => {
    await gateway?.close();
    await db?.drop();
    await redis.flush();
  });

  const scriptOf = (html: string): string => /<script type="module" src="(\/console\/assets\/[^"]+\.js)"/.exec(html)![1];

  it('serves the page at /console with a strict policy and no CORS', async () => {
    const res = await fetch(`${gateway.url}/console`, { headers: { origin: 'https://elsewhere.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toBe(readFileSync(join(built, 'index.html'), 'utf8'));
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    const csp = res.headers.get('content-security-policy')!;
    const scriptSrc = csp.split(';').find((d) => d.trim().startsWith('script-src'))!;
    expect(scriptSrc.trim()).toBe("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers a client route with the page, and hashed bundles with an immutable cache', async () => {
    const page = await fetch(`${gateway.url}/console/people/8a3f5c1e?tab=wallet`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<div id="root"></div>');

    const script = await fetch(gateway.url + scriptOf(html));
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await script.text()).length).toBeGreaterThan(10_000);

    const css = /href="(\/console\/assets\/[^"]+\.css)"/.exec(html)![1];
    expect((await fetch(gateway.url + css)).headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('refuses an asset that is not in the build, and never serves a file outside it', async () => {
    const missing = await fetch(`${gateway.url}/console/assets/main-NOPE.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('NOT_FOUND');
    // the URL's text is never joined to a directory: whatever the escapes, no file outside the build comes back
    for (const path of [
      '/console/assets/..%2f..%2f..%2fpackage.json',
      '/console/%2e%2e/%2e%2e/package.json',
      '/console/assets/%2e%2e/index.html',
    ]) {
      const res = await fetch(gateway.url + path);
      expect(await res.text()).not.toContain('"cemac-mobile-money"');
      expect(res.status).not.toBe(500);
    }
  });

  it('is not in the public OpenAPI document', async () => {
    const document = (await (await fetch(`${gateway.url}/api/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/console'))).toEqual([]);
  });
});

describe('the console not built', () => {
  const empty = mkdtempSync(join(tmpdir(), 'console-missing-'));
  const app = Fastify();
  registerConsole(app, empty);
  afterAll(async () => {
    await app.close();
    rmSync(empty, { recursive: true, force: true });
  });

  it('answers 503 with the platform error body, or a page for a browser', async () => {
    const json = await app.inject({ method: 'GET', url: '/console/approvals' });
    expect(json.statusCode).toBe(503);
    expect(json.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('npm run build') });

    const page = await app.inject({ method: 'GET', url: '/console', headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(page.statusCode).toBe(503);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('npm run build');
  });
});
