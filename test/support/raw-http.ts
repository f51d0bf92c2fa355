import { connect } from 'node:net';

export interface RawAnswer {
  /** status codes of the interim (1xx) answers, in order */
  interim: number[];
  status: number;
  /** header names lower-cased; a repeated header keeps its last value */
  headers: Record<string, string>;
  body: string;
  /** the body parsed as JSON, or undefined when it is not JSON */
  json: unknown;
}

export interface RawRequestOptions {
  /** sent after the head; with `waitForContinue`, only once the server answered 100 Continue */
  body?: Buffer | string;
  /** hold the body back until a `100 Continue` arrives, as a client sending `Expect: 100-continue` does */
  waitForContinue?: boolean;
}

/**
 * One HTTP/1.1 exchange over a plain socket, every byte as written: a request line no HTTP client
 * would send (control bytes, unknown methods, oversized headers) and the `Expect: 100-continue`
 * handshake, step by step. The head should say `Connection: close`: the answer is read until the
 * server closes the socket (or the announced body is complete).
 */
export function rawHttp(baseUrl: string, head: string | Buffer, options: RawRequestOptions = {}): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let received = Buffer.alloc(0);
    let bodySent = options.body === undefined;
    let settled = false;
    const sendBody = () => {
      if (bodySent) return;
      bodySent = true;
      // The server may answer (413) and close before it read everything: a write error is expected then.
      socket.write(options.body!, () => undefined);
    };
    const finish = () => {
      if (settled) return;
      const parsed = parseAnswer(received);
      if (!parsed) return;
      settled = true;
      socket.destroy();
      resolve(parsed);
    };
    socket.on('connect', () => {
      socket.write(typeof head === 'string' ? Buffer.from(head, 'latin1') : head);
      if (!options.waitForContinue) sendBody();
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (options.waitForContinue && !bodySent && received.toString('latin1').startsWith('HTTP/1.1 100')) sendBody();
      if (parseAnswer(received, { complete: true })) finish();
    });
    // A reset after the answer arrived is the server closing a connection whose body it did not read.
    socket.on('error', (error) => {
      if (!settled && !parseAnswer(received)) {
        settled = true;
        reject(error);
      }
    });
    socket.on('close', () => {
      finish();
      if (!settled) {
        settled = true;
        reject(new Error(`connection closed without a complete answer: ${JSON.stringify(received.toString('latin1'))}`));
      }
    });
  });
}

export interface ReusedConnection {
  /** the answer to the first request */
  answer: RawAnswer;
  /** the answer to the request sent after it on the same socket, or 'closed' when the server ended the connection first */
  next: RawAnswer | 'closed';
}

/**
 * What the server does with a keep-alive connection after answering a request before its whole
 * body arrived (a 413): `head` and `body` are sent at once, and `afterAnswer` (the rest of the body,
 * then a next request) only once the answer is in. A server that kept the socket would read on and
 * answer the next request; one that closes it never sees those bytes. The head must not say
 * `Connection: close`.
 */
export function rawHttpThenReuse(
  baseUrl: string,
  head: string,
  options: { body?: Buffer | string; afterAnswer: Buffer | string },
): Promise<ReusedConnection> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let received = Buffer.alloc(0);
    let answer: RawAnswer | undefined;
    let settled = false;
    const settle = (outcome: ReusedConnection | Error) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    socket.on('connect', () => {
      socket.write(Buffer.from(head, 'latin1'));
      if (options.body !== undefined) socket.write(options.body, () => undefined);
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const parsed = parseAnswer(received, { complete: true });
      if (!parsed) return;
      if (answer) return settle({ answer, next: parsed });
      answer = parsed;
      // The server sends nothing unasked: whatever arrives from now on answers the next request.
      received = Buffer.alloc(0);
      socket.write(options.afterAnswer, () => undefined);
    });
    // Writing to a socket the server closed fails (EPIPE, ECONNRESET): that is the outcome looked for.
    socket.on('error', (error) => {
      if (!answer) settle(error);
    });
    socket.on('close', () => {
      if (answer) settle({ answer, next: 'closed' });
      else settle(new Error(`connection closed without an answer: ${JSON.stringify(received.toString('latin1'))}`));
    });
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The platform error body (spec/README.md), as JSON, with the X-Request-Id of the answer as its requestId. */
export function expectErrorBody(res: RawAnswer, status: number, code: string): void {
  expect({ status: res.status, code: (res.json as { code?: string } | undefined)?.code }).toEqual({ status, code });
  expect(res.headers['x-request-id']).toMatch(UUID);
  expect(res.json).toEqual({ code, message: expect.any(String), requestId: res.headers['x-request-id'] });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
}

/** A request head with the headers every raw request needs (`Connection: close` unless `headers` says otherwise). */
export function head(method: string, path: string, headers: Record<string, string | number> = {}): string {
  const lines = Object.entries({ host: 'raw.test', connection: 'close', ...headers }).map(([k, v]) => `${k}: ${v}`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/** The final answer in `bytes`, after any 1xx; undefined until its head (and, if `complete`, its whole body) arrived. */
function parseAnswer(bytes: Buffer, opts: { complete?: boolean } = {}): RawAnswer | undefined {
  const interim: number[] = [];
  let rest = bytes;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const lines = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(lines[0].split(' ')[1]);
    const after = rest.subarray(end + 4);
    if (status >= 100 && status < 200) {
      interim.push(status);
      rest = after;
      continue;
    }
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
    let body: Buffer;
    if (status === 204 || status === 304) {
      body = Buffer.alloc(0);
    } else if (length !== undefined) {
      if (after.length < length) {
        if (opts.complete) return undefined;
      }
      body = after.subarray(0, length);
    } else if (headers['transfer-encoding'] === 'chunked') {
      const decoded = dechunk(after);
      if (!decoded && opts.complete) return undefined;
      body = decoded ?? after;
    } else {
      // No length: the body ends when the server closes the connection.
      if (opts.complete) return undefined;
      body = after;
    }
    const text = body.toString('utf8');
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { interim, status, headers, body: text, json };
  }
}

/** A complete chunked body, or undefined while its last chunk has not arrived. */
function dechunk(bytes: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (bytes.length < start + size + 2) return undefined;
    parts.push(bytes.subarray(start, start + size));
    at = start + size + 2;
  }
}
