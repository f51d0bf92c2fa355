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
