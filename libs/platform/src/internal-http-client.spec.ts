import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppException } from '@mm/errors';
import { InternalHttpClient } from './internal-http-client';
import { requestContext } from './request-context';

describe('InternalHttpClient', () => {
  let server: Server;
  let base: string;
  const seen: Array<Record<string, string | string[] | undefined>> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      if (req.url === '/ok') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"value":9007199254740991}');
      if (req.url === '/business')
        return res
          .writeHead(422, { 'content-type': 'application/json' })
          .end('{"code":"INSUFFICIENT_BALANCE","message":"available 1, required 2","requestId":"x"}');
      if (req.url === '/opaque') return res.writeHead(500).end('<html>boom</html>');
      // '/hang': never answer
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });

  // Generous enough for a first request on a loaded CI machine; only '/hang' waits it out.
  const client = () => new InternalHttpClient({ name: 'ledger', baseUrl: base, serviceKey: 's'.repeat(32), timeoutMs: 1_500 });

  it('sends the service key, the current ids and the idempotency key', async () => {
    const ctx = { requestId: '9c1e7a4e-0f6b-4d55-8a4e-7d1c2b3a4f5e', correlationId: 'b3b1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d' };
    const body = await requestContext.run(ctx, () => client().post<{ value: number }>('/ok', { a: 1 }, { idempotencyKey: 'k-1' }));
    expect(body.value).toBe(Number.MAX_SAFE_INTEGER);
    expect(seen.at(-1)).toMatchObject({
      'x-service-key': 's'.repeat(32),
      'x-request-id': ctx.requestId,
      'x-correlation-id': ctx.correlationId,
      'x-idempotency-key': 'k-1',
    });
  });

  it('rethrows the upstream stable code with its status', async () => {
    await expect(client().get('/business')).rejects.toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
      status: 422,
      message: 'available 1, required 2',
    });
  });

  it('maps an opaque failure to UPSTREAM_UNAVAILABLE, a hang to UPSTREAM_TIMEOUT, a closed port to UPSTREAM_UNAVAILABLE', async () => {
    await expect(client().get('/opaque')).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    const started = Date.now();
    await expect(client().get('/hang')).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(2_000);
    const closed = new InternalHttpClient({ name: 'auth', baseUrl: 'http://127.0.0.1:1', serviceKey: 'k', timeoutMs: 300 });
    await expect(closed.get('/x')).rejects.toBeInstanceOf(AppException);
    await expect(closed.get('/x')).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
  });
});
