import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import type { OrchestratorConfig } from '../orchestrator.config';
import { registerGateway } from './gateway';

/** A real auth stand-in that names itself and echoes what it was sent. */
async function replica(name: string, port = 0): Promise<FastifyInstance> {
  const app = Fastify();
  app.post('/auth/echo', async (req) => ({ served: name, body: req.body }));
  app.get('/auth/echo', async () => ({ served: name }));
  await app.listen({ host: '127.0.0.1', port });
  return app;
}
const urlOf = (app: FastifyInstance) => `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

describe('gateway proxy over several replicas of a service', () => {
  let a: FastifyInstance;
  let b: FastifyInstance;
  let gateway: FastifyInstance;
  let gatewayUrl: string;

  beforeEach(async () => {
    a = await replica('a');
    b = await replica('b');
    gateway = Fastify();
    const config = {
      AUTH_URL: [urlOf(a), urlOf(b)],
      PARTNERS_URL: ['http://127.0.0.1:9'],
      BODY_LIMIT_BYTES: 1_048_576,
      UPSTREAM_TIMEOUT_MS: 5_000,
    } as OrchestratorConfig;
    await registerGateway(gateway, config);
    await gateway.listen({ host: '127.0.0.1', port: 0 });
    gatewayUrl = urlOf(gateway);
  });
  afterEach(async () => {
    await gateway.close();
    await a.close();
    await b.close();
  });

  const post = async (i: number) => {
    const res = await fetch(`${gatewayUrl}/api/auth/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ i }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { served: string; body: unknown };
    expect(body.body).toEqual({ i });
    return body.served;
  };

  it('spreads proxied requests over both replicas', async () => {
    const served = [];
    for (let i = 0; i < 12; i++) served.push(await post(i));
    expect(served.filter((s) => s === 'a').length).toBeGreaterThanOrEqual(3);
    expect(served.filter((s) => s === 'b').length).toBeGreaterThanOrEqual(3);
  });

  it('sends a POST whose replica refuses the connection to the other one, body intact', async () => {
    await post(0);
    await b.close();
    const served = [];
    for (let i = 0; i < 12; i++) served.push(await post(i));
    expect(new Set(served)).toEqual(new Set(['a']));
  });

  it('answers 502 UPSTREAM_UNAVAILABLE when no replica is up, as with one upstream', async () => {
    await a.close();
    await b.close();
    const res = await fetch(`${gatewayUrl}/api/auth/echo`);
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
  });
});
