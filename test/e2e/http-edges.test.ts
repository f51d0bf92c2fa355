import { randomUUID } from 'node:crypto';
import type { ServiceName } from '@mm/contracts';
import { internalListenerOf } from '@mm/platform';
import { authApp } from '../../apps/auth/src/auth.app';
import { ledgerWalletsApp } from '../../apps/ledger-wallets/src/ledger-wallets.app';
import { orchestratorApp } from '../../apps/orchestrator/src/orchestrator.app';
import { partnersApp } from '../../apps/partners/src/partners.app';
import { webhookDispatcherApp } from '../../apps/webhook-dispatcher/src/webhook-dispatcher.app';
import { type RunningApp, boot } from '../support/boot';
import { expectErrorBody, head, rawHttp } from '../support/raw-http';
import { type TestDatabase, allowedCallerKey, createTestDatabase, createTestRedis, serviceEnv } from '../support/test-env';

const SERVICES = ['orchestrator', 'auth', 'partners', 'ledger-wallets', 'webhook-dispatcher'] as const;

/**
 * The same edges on every service, since all five share one bootstrap (what every service does at
 * the edge of HTTP, docs/architecture.md "Processes and ports"):
 * bytes Node's parser refuses, oversized headers, methods nobody parses, and JSON nested
 * thousands of levels deep sent to a real route with a key that route accepts.
 */
describe('every service: HTTP edges get the platform body', () => {
  let db: TestDatabase;
  const redis = createTestRedis();
  const apps = new Map<string, RunningApp>();

  beforeAll(async () => {
    db = await createTestDatabase();
    const defs = {
      orchestrator: orchestratorApp,
      auth: authApp,
      partners: partnersApp,
      'ledger-wallets': ledgerWalletsApp,
      'webhook-dispatcher': webhookDispatcherApp,
    } as const;
    for (const name of SERVICES) {
      const env = serviceEnv(name, db, redis, { LEDGER_OUTBOX_POLL_MS: '0', LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0' });
      apps.set(name, await boot(defs[name] as never, env, { listen: true }));
    }
  });
  afterAll(async () => {
    for (const app of apps.values()) await app.close();
    await db.drop();
    await redis.flush();
  });

  it.each(SERVICES)('%s: a control byte or a raw non-ASCII byte in the path is 400 BAD_REQUEST', async (name) => {
    for (const path of ['/he\x01alth', '/he\xffalth'])
      expectErrorBody(await rawHttp(apps.get(name)!.url, head('GET', path)), 400, 'BAD_REQUEST');
  });

  it.each(SERVICES)('%s: headers above the limit are 431 HEADERS_TOO_LARGE', async (name) => {
    const res = await rawHttp(apps.get(name)!.url, head('GET', '/health', { 'x-padding': 'p'.repeat(40_000) }));
    expectErrorBody(res, 431, 'HEADERS_TOO_LARGE');
  });

  // RFC 9110: a method the server does not recognise is 501; a method it knows, on a route that
  // exists without it, is 405 with Allow. Node's parser knows QUERY (and so the router sees it).
  it.each(SERVICES)('%s: a method Node cannot parse is 501 NOT_IMPLEMENTED; QUERY is 405 METHOD_NOT_ALLOWED with Allow', async (name) => {
    expectErrorBody(await rawHttp(apps.get(name)!.url, head('FROB', '/health')), 501, 'NOT_IMPLEMENTED');
    const query = await rawHttp(apps.get(name)!.url, head('QUERY', '/health'));
    expectErrorBody(query, 405, 'METHOD_NOT_ALLOWED');
    expect(query.headers.allow?.split(', ')).toContain('GET');
  });

  it.each(SERVICES)('%s: an Expect other than 100-continue is 417 EXPECTATION_FAILED, with the request id asked for', async (name) => {
    const urls = [apps.get(name)!.url];
    // the entry point's second door answers it the same way
    const internal = internalListenerOf(apps.get(name)!.app);
    if (internal) urls.push(internal.url);
    expect(urls).toHaveLength(name === 'orchestrator' ? 2 : 1);
    for (const url of urls) {
      const requestId = randomUUID();
      const res = await rawHttp(url, head('GET', '/health', { expect: '200-ok', 'x-request-id': requestId }));
      expectErrorBody(res, 417, 'EXPECTATION_FAILED');
      expect(res.headers['x-request-id']).toBe(requestId);
    }
  });

  it.each(SERVICES)('%s: a body nested 5,000 levels on a real POST route is 400 JSON_TOO_DEEP', async (name) => {
    const running = apps.get(name)!;
    const doc = (await running.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, object> };
    const path = Object.keys(doc.paths).find((p) => 'post' in doc.paths[p] && !p.includes('{'));
    expect(path).toBeDefined();
    const body = `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`;
    const res = await rawHttp(
      running.url,
      head('POST', path!, {
        'content-type': 'application/json',
        'content-length': body.length,
        'x-service-key': allowedCallerKey(name as ServiceName, 'POST', path!),
      }),
      { body },
    );
    expectErrorBody(res, 400, 'JSON_TOO_DEEP');
  });
});
