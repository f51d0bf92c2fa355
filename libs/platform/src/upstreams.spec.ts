import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { IsInt } from 'class-validator';
import { loadConfig } from './config';
import { closeInternalHttpConnections, InternalHttpClient } from './internal-http-client';
import { type UpstreamUrls, UpstreamsField, parseUpstreams, upstreamsProblem } from './upstreams';

class WithUpstreams {
  @UpstreamsField()
  LEDGER_URL: UpstreamUrls = ['http://127.0.0.1:3003'];

  @IsInt()
  OTHER = 1;
}

describe('upstream lists in config', () => {
  it('a single URL stays one upstream, a comma-separated list gives each item trimmed', () => {
    expect(loadConfig(WithUpstreams, {}).LEDGER_URL).toEqual(['http://127.0.0.1:3003']);
    expect(loadConfig(WithUpstreams, { LEDGER_URL: 'http://ledger:3003' }).LEDGER_URL).toEqual(['http://ledger:3003']);
    expect(loadConfig(WithUpstreams, { LEDGER_URL: ' http://127.0.0.1:3003, http://127.0.0.1:3013 ' }).LEDGER_URL).toEqual([
      'http://127.0.0.1:3003',
      'http://127.0.0.1:3013',
    ]);
  });

  it.each([
    ['', 'must be a base URL, or several separated by commas'],
    [' , ', 'must be a base URL, or several separated by commas'],
    ['ledger:3003', 'must be an http(s) URL'],
    ['ftp://ledger', 'must be an http(s) URL'],
    ['http://127.0.0.1:3003,nope', 'must be an http(s) URL (item 2)'],
    ['http://a:1/base,http://b:1', 'items must be origins without a path (item 1)'],
    ['http://a:1,http://a:1/', 'names the same replica twice'],
  ])('refuses %j, naming the variable but not quoting it', (value, problem) => {
    expect(() => loadConfig(WithUpstreams, { LEDGER_URL: value })).toThrow(`LEDGER_URL ${problem}`);
  });

  it('keeps a base path when there is a single URL (as before)', () => {
    expect(upstreamsProblem(parseUpstreams('http://proxy:8080/ledger'))).toBeUndefined();
  });
});

/** A real local server that names itself in its answers and counts what it served. */
async function replica(name: string): Promise<{ app: FastifyInstance; url: string; hits: () => number }> {
  let hits = 0;
  const app = Fastify();
  app.all('/echo', async (req) => {
    hits += 1;
    return { served: name, method: req.method, body: req.body ?? null };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, hits: () => hits };
}

describe('InternalHttpClient over several replicas', () => {
  let a: Awaited<ReturnType<typeof replica>>;
  let b: Awaited<ReturnType<typeof replica>>;
  let client: InternalHttpClient;

  beforeEach(async () => {
    a = await replica('a');
    b = await replica('b');
    client = new InternalHttpClient({ name: 'ledger-wallets', baseUrl: [a.url, b.url], serviceKey: 'k'.repeat(32), timeoutMs: 2_000 });
  });
  afterEach(async () => {
    await closeInternalHttpConnections();
    await a.app.close();
    await b.app.close();
  });

  const served = async (n: number, method: 'GET' | 'POST' = 'GET'): Promise<string[]> => {
    const names: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await client.request<{ served: string; body: unknown }>(method, '/echo', method === 'POST' ? { body: { i } } : {});
      if (method === 'POST') expect(res.body.body).toEqual({ i });
      names.push(res.body.served);
    }
    return names;
  };

  it('spreads requests over both replicas', async () => {
    const names = await served(20);
    expect(names.filter((n) => n === 'a').length).toBeGreaterThanOrEqual(5);
    expect(names.filter((n) => n === 'b').length).toBeGreaterThanOrEqual(5);
  });

  it('sends a request refused by a stopped replica to the other, POST included, and uses the replica again once it is back', async () => {
    await served(4);
    const port = Number(new URL(b.url).port);
    await b.app.close();

    // Nothing reached the stopped replica: every request, GET or POST, is answered by the other.
    expect(new Set([...(await served(10)), ...(await served(10, 'POST'))])).toEqual(new Set(['a']));

    // Back on the same port: the balancer finds it again (its weight recovers as connections succeed).
    const again = Fastify();
    let backHits = 0;
    again.get('/echo', async () => {
      backHits += 1;
      return { served: 'b-again' };
    });
    await again.listen({ host: '127.0.0.1', port });
    try {
      const names = await served(400);
      expect(names.every((n) => n === 'a' || n === 'b-again')).toBe(true);
      expect(backHits).toBeGreaterThan(0);
    } finally {
      await closeInternalHttpConnections();
      await again.close();
    }
  });

  it('does not resend a request that reached a replica: a reset after the request was written is the caller’s error', async () => {
    const rude = Fastify();
    rude.post('/echo', async (req) => {
      req.raw.socket.destroy();
      return new Promise(() => undefined);
    });
    await rude.listen({ host: '127.0.0.1', port: 0 });
    const rudeUrl = `http://127.0.0.1:${(rude.server.address() as AddressInfo).port}`;
    const both = new InternalHttpClient({
      name: 'ledger-wallets',
      baseUrl: [rudeUrl, a.url],
      serviceKey: 'k'.repeat(32),
      timeoutMs: 2_000,
    });
    const before = a.hits();
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => both.post('/echo', { x: 1 })));
    try {
      // Some went to the rude replica and failed there; none of those was replayed on the other.
      const failed = outcomes.filter((o) => o.status === 'rejected').length;
      expect(failed).toBeGreaterThan(0);
      expect(a.hits() - before).toBe(6 - failed);
      for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    } finally {
      await closeInternalHttpConnections();
      await rude.close();
    }
  });
});
