import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { orchestratorApp } from '../../apps/orchestrator/src/orchestrator.app';
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
  let orchestrator: RunningApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    const target = new URL(redis.url);
    proxy = await new TcpProxy(target.hostname, Number(target.port || 6379)).start();
    const viaProxy = new URL(redis.url);
    viaProxy.port = String(proxy.port);
    const down = await closedPortUrl();
    // the orchestrator: its public listener is the probes' port and has to let /health/live through
    orchestrator = await boot(
      orchestratorApp,
      serviceEnv('orchestrator', db, redis, {
        REDIS_URL: viaProxy.toString(),
        AUTH_URL: down,
        PARTNERS_URL: down,
        LEDGER_URL: down,
        WEBHOOK_DISPATCHER_URL: down,
      }),
      { listen: true },
    );
  });
  afterAll(async () => {
    // Redis's connections were held, not cut: released, they drain and the app closes cleanly (a cut
    // link left BullMQ and ioredis reconnecting through a shutdown that then never ended).
    proxy?.release();
    await orchestrator?.close();
    await proxy?.stop();
    await db?.drop();
    await redis.flush();
  });

  it('with Redis unreachable, /health is 503 (out of the Service) while /health/live stays 200 (no restart), on the public listener', async () => {
    const get = async (path: string) => {
      const res = await fetch(`${orchestrator.url}${path}`);
      return { status: res.status, body: (await res.json()) as unknown };
    };
    // Redis connects after boot: wait until the pod would be ready.
    for (let i = 0; (await get('/health')).status !== 200; i++) {
      if (i === 50) throw new Error('the orchestrator never became ready');
      await new Promise((r) => setTimeout(r, 100));
    }
    // Redis stops answering: every byte towards it waits in the relay, so its ping times out.
    proxy.hold();
    const readiness = await get('/health');
    const liveness = await get('/health/live');
    expect({ readiness: readiness.status, liveness }).toEqual({ readiness: 503, liveness: { status: 200, body: { status: 'ok' } } });
  });
});
