import { Logger } from '@nestjs/common';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppException, describeError } from '@mm/errors';
import { InternalHttpClient, closeInternalHttpConnections } from './internal-http-client';
import { requestContext } from './request-context';

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** the client's port of the connection the request came on: equal ports, same connection */
  peerPort: number;
}

describe('InternalHttpClient', () => {
  let server: Server;
  let base: string;
  const seen: Seen[] = [];
  let retries = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        seen.push({ url: req.url ?? '', headers: req.headers, body, peerPort: req.socket.remotePort ?? 0 });
        const json = (status: number, value: string, extra: Record<string, string> = {}) =>
          res.writeHead(status, { 'content-type': 'application/json', ...extra }).end(value);
        switch (req.url) {
          case '/ok':
          case '/base/ok?x=1':
            return json(200, '{"value":9007199254740991}');
          case '/empty':
            return res.writeHead(204).end();
          case '/business':
            return json(422, '{"code":"INSUFFICIENT_BALANCE","message":"available 1, required 2","requestId":"x"}');
          case '/throttled':
            return json(429, '{"code":"OTP_THROTTLED","message":"retry in 17 seconds","requestId":"x"}', { 'retry-after': '17' });
          case '/locked':
            return json(423, '{"code":"ACCOUNT_LOCKED","message":"locked","requestId":"x"}', { 'retry-after': '300' });
          case '/db-down':
            return json(503, '{"code":"SERVICE_UNAVAILABLE","message":"down","requestId":"x"}', { 'retry-after': '1' });
          case '/overloaded':
            return res.writeHead(503, { 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' }).end('busy');
          case '/opaque-with-delay':
            return res.writeHead(500, { 'retry-after': '5' }).end('<html>boom</html>');
          case '/odd-delay':
            return json(429, '{"code":"RATE_LIMITED","message":"slow down","requestId":"x"}', { 'retry-after': 'soon' });
          case '/stale-key':
            return json(401, '{"code":"INVALID_SERVICE_CREDENTIALS","message":"Invalid service credentials","requestId":"x"}');
          case '/not-listed':
            return json(403, '{"code":"SERVICE_NOT_ALLOWED","message":"Service not allowed","requestId":"x"}');
          case '/opaque':
            return res.writeHead(500).end('<html>boom</html>');
          case '/text':
            return res.writeHead(200, { 'content-type': 'text/plain' }).end('plain');
          case '/cut':
            return req.socket.destroy();
          case '/stall-body':
            // The answer starts, then its body never ends.
            return res.writeHead(200, { 'content-type': 'application/json' }).write('{"value":');
          case '/flaky':
            // Fails the first time, answers the second: what a caller's retry with one idempotency key sees.
            return retries++ === 0
              ? json(503, '{"code":"SERVICE_UNAVAILABLE","message":"down","requestId":"x"}')
              : json(200, '{"value":1}');
          default:
          // '/hang': never answer
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await closeInternalHttpConnections();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  // Generous enough for a first request on a loaded CI machine; only '/hang' and '/stall-body' wait it out.
  const client = (timeoutMs = 1_500) => new InternalHttpClient({ name: 'ledger', baseUrl: base, serviceKey: 's'.repeat(32), timeoutMs });
  const caught = async (call: Promise<unknown>): Promise<AppException> => {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppException);
    return error as AppException;
  };

  it('sends the service key, the current ids, the idempotency key and the JSON body', async () => {
    const ctx = { requestId: '9c1e7a4e-0f6b-4d55-8a4e-7d1c2b3a4f5e', correlationId: 'b3b1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d' };
    const body = await requestContext.run(ctx, () => client().post<{ value: number }>('/ok', { a: 1 }, { idempotencyKey: 'k-1' }));
    expect(body.value).toBe(Number.MAX_SAFE_INTEGER);
    expect(seen.at(-1)?.headers).toMatchObject({
      'x-service-key': 's'.repeat(32),
      'x-request-id': ctx.requestId,
      'x-correlation-id': ctx.correlationId,
      'x-idempotency-key': 'k-1',
      'content-type': 'application/json',
      accept: 'application/json',
    });
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({ a: 1 });
  });

  it('sends no ids outside a request, no body on a GET, and resolves paths against the base URL', async () => {
    const withPath = new InternalHttpClient({ name: 'x', baseUrl: `${base}/base/`, serviceKey: 'k', timeoutMs: 1_500 });
    expect(await withPath.get('ok?x=1', { headers: { 'x-extra': 'yes' } })).toEqual({ value: Number.MAX_SAFE_INTEGER });
    const last = seen.at(-1)!;
    expect(last.url).toBe('/base/ok?x=1');
    expect(last.headers['x-extra']).toBe('yes');
    expect(last.headers['x-request-id']).toBeUndefined();
    expect(last.headers['content-type']).toBeUndefined();
    expect(last.body).toBe('');
  });

  it('answers the status, the headers and the parsed body; an empty body is undefined, a non-JSON one is text', async () => {
    const ok = await client().request<{ value: number }>('PUT', '/ok', { body: { b: 2 } });
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toBe('application/json');
    expect(await client().request('DELETE', '/empty')).toMatchObject({ status: 204, body: undefined });
    expect(await client().get('/text')).toBe('plain');
  });

  it('keeps connections open between calls and shares them between clients of the same service', async () => {
    // Without keep-alive every call would arrive on a connection of its own. undici may alternate
    // between two (a connection counts as busy until just after its answer is read), never more
    // when the calls follow each other.
    const from = seen.length;
    for (let i = 0; i < 4; i++) {
      await client().get('/ok');
      await client().post('/ok', { c: i });
      // An upstream error answer leaves the connection usable too.
      await expect(client().get('/business')).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    }
    const ports = seen.slice(from).map((s) => s.peerPort);
    expect(ports).toHaveLength(12);
    expect(new Set(ports).size).toBeLessThanOrEqual(2);
  });

  it('rethrows the upstream stable code with its status', async () => {
    await expect(client().get('/business')).rejects.toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
      status: 422,
      message: 'available 1, required 2',
    });
    expect((await caught(client().get('/business'))).details?.headers).toBeUndefined();
  });

  it("maps the upstream's refusal of our own credential to 502 UPSTREAM_UNAVAILABLE, logged at ERROR naming the upstream", async () => {
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      for (const [path, code] of [
        ['/stale-key', 'INVALID_SERVICE_CREDENTIALS'],
        ['/not-listed', 'SERVICE_NOT_ALLOWED'],
      ] as const) {
        const refused = await caught(client().post(path, {}));
        expect(refused).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 502, message: 'ledger is unavailable' });
        expect(errors).toHaveBeenLastCalledWith(
          expect.objectContaining({ upstream: 'ledger', code, status: code === 'SERVICE_NOT_ALLOWED' ? 403 : 401 }),
          expect.stringContaining('ledger'),
        );
      }
      // Any other upstream refusal is the end client's business and is not logged here.
      errors.mockClear();
      await expect(client().get('/business')).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });

  it("relays the upstream's Retry-After with the error it came with", async () => {
    const throttled = await caught(client().post('/throttled', {}));
    expect(throttled).toMatchObject({ code: 'OTP_THROTTLED', status: 429 });
    // What the caller's own error filter will answer.
    expect(describeError(throttled)).toMatchObject({ status: 429, code: 'OTP_THROTTLED', headers: { 'retry-after': '17' } });
    expect((await caught(client().post('/locked', {}))).details?.headers).toEqual({ 'retry-after': '300' });
    expect(await caught(client().get('/db-down'))).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      details: { headers: { 'retry-after': '1' } },
    });
    // An opaque overload keeps its delay (an HTTP date here); an opaque crash and a malformed value do not.
    const overloaded = await caught(client().get('/overloaded'));
    expect(overloaded).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 502, message: 'ledger answered 503' });
    expect(overloaded.details?.headers).toEqual({ 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' });
    const crashed = await caught(client().get('/opaque-with-delay'));
    expect(crashed).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 502 });
    expect(crashed.details?.headers).toBeUndefined();
    const odd = await caught(client().get('/odd-delay'));
    expect(odd).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(odd.details?.headers).toBeUndefined();
  });

  it('maps an opaque failure and a cut connection to UPSTREAM_UNAVAILABLE, and a closed port too', async () => {
    await expect(client().get('/opaque')).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 502 });
    await expect(client().post('/cut', { d: 4 })).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', message: 'ledger is unavailable' });
    const closed = new InternalHttpClient({ name: 'auth', baseUrl: 'http://127.0.0.1:1', serviceKey: 'k', timeoutMs: 300 });
    await expect(closed.get('/x')).rejects.toBeInstanceOf(AppException);
    await expect(closed.get('/x')).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 502, message: 'auth is unavailable' });
    // What the transport said stays on the exception, for the log line: here a refused connection.
    const refused = await caught(closed.get('/x'));
    expect(JSON.stringify(refused.cause, Object.getOwnPropertyNames(refused.cause)) + String(refused.cause)).toMatch(/ECONNREFUSED/);
    // The pool recovers: the next call to the live upstream answers.
    expect(await client().get('/ok')).toEqual({ value: Number.MAX_SAFE_INTEGER });
  });

  it('maps a hang, and a body that never ends, to UPSTREAM_TIMEOUT within the timeout; the next call answers', async () => {
    const started = Date.now();
    await expect(client().get('/hang')).rejects.toMatchObject({
      code: 'UPSTREAM_TIMEOUT',
      status: 504,
      message: 'ledger did not answer in time',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    // The call's own timeout wins over the client's.
    await expect(client(60_000).get('/stall-body', { timeoutMs: 300 })).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    expect(await client().get('/ok')).toEqual({ value: Number.MAX_SAFE_INTEGER });
  });

  it('sends the same idempotency key again when the caller retries', async () => {
    const c = client();
    const call = () => c.post<{ value: number }>('/flaky', { e: 5 }, { idempotencyKey: 'k-retry' });
    await expect(call()).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    expect(await call()).toEqual({ value: 1 });
    expect(seen.slice(-2).map((s) => [s.url, s.headers['x-idempotency-key'], s.body])).toEqual([
      ['/flaky', 'k-retry', '{"e":5}'],
      ['/flaky', 'k-retry', '{"e":5}'],
    ]);
  });
});
