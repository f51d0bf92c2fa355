import { Pool, type Dispatcher } from 'undici';

export interface HttpResult {
  status: number;
  body: { code?: string } & Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

type Headers = HttpResult['headers'];

/**
 * A keep-alive HTTP/1.1 load generator that spends as little CPU per request as we could make it: it shares
 * the machine's two cores with the service under test, so every microsecond it burns is taken from the thing
 * being measured. An undici Pool driven through `dispatch` with a plain handler object avoids the per-response
 * Readable stream of node:http (and the stream plus AsyncResource of undici's own `request`).
 */
export class BenchClient {
  private readonly pools = new Map<string, Pool>();

  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string>,
    private readonly maxSockets = 64,
  ) {}

  call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
    const url = new URL(path, this.baseUrl);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      this.pool(url.origin).dispatch(
        {
          method: method as Dispatcher.HttpMethod,
          path: url.pathname + url.search,
          // undici derives content-length from the string body.
          headers: { ...this.headers, ...(payload ? { 'content-type': 'application/json' } : {}), ...headers },
          body: payload,
        },
        new Exchange(resolve, reject),
      );
    });
  }

  /** Drops every connection at once (in-flight calls reject), like destroying the old http.Agent. */
  close(): void {
    for (const pool of this.pools.values()) void pool.destroy().catch(() => undefined);
    this.pools.clear();
  }

  /** One pool per origin, as http.Agent kept one socket pool per host: a call may name an absolute URL. */
  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.maxSockets,
        pipelining: 1,
        // http.Agent never timed a request out; a slow answer under load is data, not an error.
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }
}

/** One request's response, gathered straight from undici's parser callbacks. */
class Exchange implements Dispatcher.DispatchHandler {
  private status = 0;
  private headers: Headers = {};
  private chunks: Buffer[] = [];

  constructor(
    private readonly resolve: (res: HttpResult) => void,
    private readonly reject: (err: Error) => void,
  ) {}

  /** undici only treats a handler as the (non-deprecated) controller API when this method exists. */
  onRequestStart(): void {}

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, headers: Headers): void {
    this.status = statusCode;
    this.headers = headers;
    this.chunks = [];
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    const { chunks } = this;
    const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* keep text */
    }
    this.resolve({ status: this.status, body: (parsed ?? {}) as HttpResult['body'], headers: asNodeHeaders(this.headers) });
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    this.reject(err);
  }
}

/** Headers node:http keeps only the first of when a response repeats them. */
const FIRST_ONLY = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

/**
 * undici turns a repeated header into an array; node:http joins it (or keeps the first), and callers were
 * written against node:http — `server-timing` can legitimately come as several lines.
 */
function asNodeHeaders(headers: Headers): Headers {
  for (const name in headers) {
    const value = headers[name];
    if (!Array.isArray(value) || name === 'set-cookie') continue;
    headers[name] = FIRST_ONLY.has(name) ? value[0] : value.join(name === 'cookie' ? '; ' : ', ');
  }
  return headers;
}
