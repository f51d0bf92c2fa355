import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { orchestratorApp } from '../../apps/orchestrator/src/orchestrator.app';
import { partnersApp } from '../../apps/partners/src/partners.app';
import { TcpProxy } from '../../apps/webhook-dispatcher/test/support/tcp-proxy';
import { type RunningApp, boot } from '../support/boot';
import { type TestDatabase, createTestDatabase, createTestRedis, serviceEnv } from '../support/test-env';

/** A loopback URL nothing listens on: an upstream that is down. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}`;
}

/**
 * Kubernetes probes: `/health` is readiness (it checks the database and Redis), `/health/live` is
 * liveness and checks nothing but that the process answers, so that an outage of a dependency takes
 * pods out of the Service without restarting them.
 */
describe('liveness (/health/live) apart from readiness (/health)', () => {
  const redis = createTestRedis();
  let db: TestDatabase;
  let proxy: TcpProxy;
  let partners: RunningApp;
  let orchestrator: RunningApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    const target = new URL(redis.url);
    proxy = await new TcpProxy(target.hostname, Number(target.port || 6379)).start();
    const viaProxy = new URL(redis.url);
    viaProxy.port = String(proxy.port);
    const down = await closedPortUrl();
    [partners, orchestrator] = await Promise.all([
      boot(partnersApp, serviceEnv('partners', db, redis, { REDIS_URL: viaProxy.toString() })),
      boot(
        orchestratorApp,
        serviceEnv('orchestrator', db, redis, { AUTH_URL: down, PARTNERS_URL: down, LEDGER_URL: down, WEBHOOK_DISPATCHER_URL: down }),
        { listen: true },
      ),
    ]);
  });
  afterAll(async () => {
    await proxy?.start().catch(() => undefined);
    await Promise.all([partners, orchestrator].filter(Boolean).map((a) => a.close()));
    await proxy?.stop();
    await db?.drop();
    await redis.flush();
  });

  it('with Redis unreachable, /health is 503 (out of the Service) while /health/live stays 200 (no restart)', async () => {
    const get = (url: string) => partners.app.inject({ method: 'GET', url });
    // Redis connects after boot: wait until the pod would be ready.
    for (let i = 0; (await get('/health')).statusCode !== 200; i++) {
      if (i === 50) throw new Error('partners never became ready');
      await new Promise((r) => setTimeout(r, 100));
    }
    await proxy.stop();
    const readiness = await get('/health');
    const liveness = await get('/health/live');
    expect({ readiness: readiness.statusCode, liveness: liveness.statusCode, body: liveness.json() }).toEqual({
      readiness: 503,
      liveness: 200,
      body: { status: 'ok' },
    });
  });

  it("the orchestrator serves /health/live on its public listener (the probes' port), not only internally", async () => {
    const res = await fetch(`${orchestrator.url}/health/live`);
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { status: 'ok' } });
  });
});
