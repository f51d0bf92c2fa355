import { randomUUID } from 'node:crypto';
import { expectErrorBody, head, rawHttp, rawHttpThenReuse } from '../../../test/support/raw-http';
import { callerKey } from '../../../test/support/test-env';
import { ADMIN_PHONE, PlatformHarness } from './platform-harness';

const CUSTOMER_PHONE = '+237690000451';
const CUSTOMER_PIN = '7315';

/** `{"a":{"a":…}}` nested `depth` levels. */
const deepJson = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/**
 * The edges of HTTP at the public entry point, met with a raw client: the `Expect: 100-continue`
 * handshake and oversized bodies on proxied routes, bytes the HTTP parser refuses, the gateway's
 * own refusals, empty and hostile JSON bodies. Every answer is the platform's, with X-Request-Id.
 */
describe('gateway: HTTP edges through the public entry point', () => {
  const h = new PlatformHarness();
  let customerToken: string;

  beforeAll(async () => {
    await h.start();
    await h.authUser(CUSTOMER_PHONE, CUSTOMER_PIN, ['CUSTOMER']);
    customerToken = await h.login(CUSTOMER_PHONE, CUSTOMER_PIN);
  });
  afterAll(() => h.stop());

  describe('Expect: 100-continue and body size on proxied routes (docs/architecture.md "Processes and ports")', () => {
    it('a login sent with Expect: 100-continue gets 100 Continue, then auth’s answer', async () => {
      const body = JSON.stringify({ phone: CUSTOMER_PHONE, pin: CUSTOMER_PIN }); // a customer: staff answer a second-factor challenge
      const res = await rawHttp(
        h.orchestrator.url,
        head('POST', '/api/auth/login', { 'content-type': 'application/json', 'content-length': body.length, expect: '100-continue' }),
        { body, waitForContinue: true },
      );
      expect(res.interim).toEqual([100]);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ token: expect.any(String), refreshToken: expect.stringMatching(/^rt1\./) });
    });

    it('a wrong PIN sent with Expect: 100-continue is auth’s 401, not a proxy failure', async () => {
      const body = JSON.stringify({ phone: ADMIN_PHONE, pin: '0000' });
      const res = await rawHttp(
        h.orchestrator.url,
        head('POST', '/api/auth/login', { 'content-type': 'application/json', 'content-length': body.length, expect: '100-continue' }),
        { body, waitForContinue: true },
      );
      expectErrorBody(res, 401, 'INVALID_CREDENTIALS');
    });

    it('a body above the limit is 413 PAYLOAD_TOO_LARGE, with or without Expect (then without 100 Continue), never 502', async () => {
      const limit = h.orchestrator.config.BODY_LIMIT_BYTES;
      const body = Buffer.alloc(limit + 1024, 'a');
      const plain = await rawHttp(
        h.orchestrator.url,
        head('POST', '/api/auth/login', { 'content-type': 'application/json', 'content-length': body.length }),
        { body },
      );
      expectErrorBody(plain, 413, 'PAYLOAD_TOO_LARGE');
      const expecting = await rawHttp(
        h.orchestrator.url,
        head('POST', '/api/auth/login', { 'content-type': 'application/json', 'content-length': body.length, expect: '100-continue' }),
        { body, waitForContinue: true },
      );
      expectErrorBody(expecting, 413, 'PAYLOAD_TOO_LARGE');
      // refused before the upload: no 100 Continue for a body declared too large
      expect(expecting.interim).toEqual([]);
    });

    it('a chunked body under the limit reaches auth intact (the gateway counts it as it streams)', async () => {
      const body = JSON.stringify({ phone: CUSTOMER_PHONE, pin: CUSTOMER_PIN }); // a customer: staff answer a second-factor challenge
      const half = Math.floor(body.length / 2);
      const framed =
        [body.slice(0, half), body.slice(half)].map((part) => `${part.length.toString(16)}\r\n${part}\r\n`).join('') + '0\r\n\r\n';
      const res = await rawHttp(
        h.orchestrator.url,
        head('POST', '/api/auth/login', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
        { body: framed },
      );
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ token: expect.any(String) });
    });

    it('a chunked body that grows past the limit is 413 PAYLOAD_TOO_LARGE too', async () => {
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const count = Math.ceil(h.orchestrator.config.BODY_LIMIT_BYTES / chunk.length) + 2;
      const framed = Buffer.concat([
        ...Array.from({ length: count }, () =>
          Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]),
        ),
        Buffer.from('0\r\n\r\n'),
      ]);
      const res = await rawHttp(
        h.orchestrator.url,
        head('POST', '/api/auth/login', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
        { body: framed },
      );
      expectErrorBody(res, 413, 'PAYLOAD_TOO_LARGE');
      // the gateway's own answer (it names the limit), not a race between auth's 413 and the upload
      expect((res.json as { message: string }).message).toContain(String(h.orchestrator.config.BODY_LIMIT_BYTES));
    });
  });

  describe('a 413 on a proxied route ends the connection (docs/architecture.md "Processes and ports")', () => {
    // A keep-alive client: nothing says Connection: close. If the server kept the socket after its
    // 413, it would read (and throw away) the rest of the body, then answer this next request.
    const next = head('GET', '/health', { connection: 'keep-alive' });
    const chunked = (count: number, size: number): Buffer =>
      Buffer.concat(
        Array.from({ length: count }, () =>
          Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), Buffer.alloc(size, 'a'), Buffer.from('\r\n')]),
        ),
      );

    it('a declared Content-Length above the limit: 413 with Connection: close, and the body is never read', async () => {
      const declared = h.orchestrator.config.BODY_LIMIT_BYTES + 1;
      const res = await rawHttpThenReuse(
        h.orchestrator.url,
        head('POST', '/api/auth/login', { 'content-type': 'application/json', 'content-length': declared, connection: 'keep-alive' }),
        { afterAnswer: Buffer.concat([Buffer.alloc(declared, 'a'), Buffer.from(next)]) },
      );
      expectErrorBody(res.answer, 413, 'PAYLOAD_TOO_LARGE');
      expect(res.answer.headers.connection).toBe('close');
      expect(res.next).toBe('closed');
    });

    it('a chunked body cut at the limit: 413 with Connection: close, and the rest is never read', async () => {
      const size = 64 * 1024;
      const count = Math.ceil(h.orchestrator.config.BODY_LIMIT_BYTES / size) + 1;
      const res = await rawHttpThenReuse(
        h.orchestrator.url,
        head('POST', '/api/auth/login', { 'content-type': 'application/json', 'transfer-encoding': 'chunked', connection: 'keep-alive' }),
        { body: chunked(count, size), afterAnswer: Buffer.concat([chunked(2, size), Buffer.from('0\r\n\r\n'), Buffer.from(next)]) },
      );
      expectErrorBody(res.answer, 413, 'PAYLOAD_TOO_LARGE');
      expect(res.answer.headers.connection).toBe('close');
      expect(res.next).toBe('closed');
    });
  });

  describe('deep JSON is refused before any recursion (docs/architecture.md "Processes and ports")', () => {
    it.each(['/api/auth/login', '/api/v1/intents'])('POST %s with a body nested 5,000 levels is 400 JSON_TOO_DEEP', async (path) => {
      const body = deepJson(5_000);
      const res = await rawHttp(
        h.orchestrator.url,
        head('POST', path, { 'content-type': 'application/json', 'content-length': body.length, authorization: `Bearer ${customerToken}` }),
        { body },
      );
      expectErrorBody(res, 400, 'JSON_TOO_DEEP');
    });

    it('the ledger refuses it the same way', async () => {
      const body = deepJson(5_000);
      const res = await rawHttp(
        h.ledger.url,
        head('POST', '/v1/internal/wallets', {
          'content-type': 'application/json',
          'content-length': body.length,
          'x-service-key': callerKey('orchestrator'),
        }),
        { body },
      );
      expectErrorBody(res, 400, 'JSON_TOO_DEEP');
    });
  });

  describe('one error body at the edges (docs/architecture.md "Processes and ports")', () => {
    it.each([
      ['a control byte', '/api/config/curr\x01encies'],
      ['a raw non-ASCII byte', '/api/config/curr\xe9ncies'],
    ])('%s in the path is 400 BAD_REQUEST with the platform body, on both listeners', async (_name, path) => {
      for (const base of [h.orchestrator.url, h.internalUrl]) {
        expectErrorBody(await rawHttp(base, head('GET', path)), 400, 'BAD_REQUEST');
      }
    });

    it('headers too large are 431 HEADERS_TOO_LARGE with the platform body, on both listeners', async () => {
      for (const base of [h.orchestrator.url, h.internalUrl]) {
        expectErrorBody(
          await rawHttp(base, head('GET', '/api/config/currencies', { 'x-padding': 'p'.repeat(40_000) })),
          431,
          'HEADERS_TOO_LARGE',
        );
      }
    });

    it('the gateway’s refusal of an auth internal route is the platform 404, with the request id asked for', async () => {
      const requestId = randomUUID();
      const res = await rawHttp(
        h.orchestrator.url,
        head('POST', '/api/auth/internal/create-idp-user', {
          'content-type': 'application/json',
          'content-length': 2,
          'x-request-id': requestId,
        }),
        { body: '{}' },
      );
      expectErrorBody(res, 404, 'NOT_FOUND');
      expect(res.headers['x-request-id']).toBe(requestId);
    });

    it('the gateway’s refusal of a dot segment is the platform 400', async () => {
      expectErrorBody(await rawHttp(h.orchestrator.url, head('GET', '/api/auth/../x')), 400, 'BAD_REQUEST');
      expectErrorBody(await rawHttp(h.internalUrl, head('GET', '/api/auth/../x')), 400, 'BAD_REQUEST');
    });

    it('a method the server knows (QUERY) on a route without it is 405 METHOD_NOT_ALLOWED with Allow, on own and proxied routes', async () => {
      const own = await rawHttp(h.orchestrator.url, head('QUERY', '/api/config/currencies'));
      expectErrorBody(own, 405, 'METHOD_NOT_ALLOWED');
      expect(own.headers.allow?.split(', ')).toContain('GET');
      const proxied = await rawHttp(
        h.orchestrator.url,
        head('QUERY', '/api/auth/login', { 'content-type': 'application/json', 'content-length': 2 }),
        { body: '{}' },
      );
      expectErrorBody(proxied, 405, 'METHOD_NOT_ALLOWED');
      expect(proxied.headers.allow?.split(', ')).toContain('POST');
    });

    it('a method Node cannot even parse is 501 NOT_IMPLEMENTED, on both listeners', async () => {
      for (const base of [h.orchestrator.url, h.internalUrl]) {
        expectErrorBody(await rawHttp(base, head('FROB', '/api/config/currencies')), 501, 'NOT_IMPLEMENTED');
      }
    });
  });

  describe('JSON bodies that are empty or hostile (docs/architecture.md "Processes and ports")', () => {
    const emptyJson = (path: string, token?: string) =>
      rawHttp(
        h.orchestrator.url,
        head('POST', path, {
          'content-type': 'application/json',
          'content-length': 0,
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        }),
      );

    it('POST /api/auth/logout with Content-Type: application/json and no body ends the session', async () => {
      const token = await h.login(CUSTOMER_PHONE, CUSTOMER_PIN);
      const res = await emptyJson('/api/auth/logout', token);
      expect(res.status).toBe(204);
      expect((await h.call('GET', '/api/auth/me', { token })).body.code).toBe('TOKEN_REVOKED');
    });

    it('POST /api/v1/intents/:id/cancel with an empty JSON body reaches the route (an unknown intent is 404)', async () => {
      const res = await emptyJson(`/api/v1/intents/${randomUUID()}/cancel`, customerToken);
      expectErrorBody(res, 404, 'INTENT_NOT_FOUND');
    });

    it('POST /api/auth/refresh with an empty JSON body names the missing field instead of calling it malformed', async () => {
      const res = await emptyJson('/api/auth/refresh');
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [expect.objectContaining({ field: 'refreshToken' })],
        requestId: res.headers['x-request-id'],
      });
    });

    it.each(['/api/auth/login', '/api/v1/intents'])('a __proto__ key on POST %s is refused with its own code', async (path) => {
      const body = '{"phone":"+237690000451","pin":"7315","__proto__":{"admin":true}}';
      const res = await rawHttp(
        h.orchestrator.url,
        head('POST', path, { 'content-type': 'application/json', 'content-length': body.length, authorization: `Bearer ${customerToken}` }),
        { body },
      );
      expectErrorBody(res, 400, 'FORBIDDEN_JSON_KEY');
    });
  });
});
