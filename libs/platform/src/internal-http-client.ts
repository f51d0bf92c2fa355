import type { IncomingHttpHeaders } from 'node:http';
import { Logger } from '@nestjs/common';
import { Agent, type Dispatcher } from 'undici';
import { AppException, isErrorCode, type FieldError } from '@mm/errors';
import { currentContext } from './request-context';
import { SERVICE_KEY_HEADER } from './service-key.guard';
import { type UpstreamUrls, createBalancer } from './upstreams';

export interface InternalClientOptions {
  /** name of the upstream, for messages and logs */
  name: string;
  /** one base URL, or the replicas' (balanced, see createBalancer) */
  baseUrl: string | UpstreamUrls;
  serviceKey: string;
  timeoutMs: number;
}

export interface InternalRequest {
  body?: unknown;
  headers?: Record<string, string>;
  idempotencyKey?: string;
  timeoutMs?: number;
}

export interface InternalResponse<T> {
  status: number;
  /** lower-case names, as Node's own HTTP modules give them */
  headers: IncomingHttpHeaders;
  body: T;
}

/**
 * One connection pool per upstream origin, shared by every client of the process: several clients
 * call the same service (the ledger from the money flow, the gateway and the reconciler), and
 * sharing keeps the number of open sockets to what the concurrency needs. undici's `request()`
 * instead of `fetch`: the same keep-alive connections without the WHATWG Request/Response/Headers
 * and stream layers, which cost about a millisecond of CPU per call (docs/performance.md).
 * Idle sockets are closed after a few seconds (undici's default, below the services' own
 * keep-alive timeout, so the client always closes first) and never keep the process alive.
 */
let sharedAgent: Agent | undefined;
function agent(): Dispatcher {
  sharedAgent ??= new Agent();
  return sharedAgent;
}

/** Replicas of one service are one balancer per list, shared by every client given that list. */
const balancers = new Map<string, Dispatcher>();
function balancer(origins: UpstreamUrls): Dispatcher {
  const key = origins.join(',');
  let found = balancers.get(key);
  if (!found) {
    found = createBalancer(origins);
    balancers.set(key, found);
  }
  return found;
}

/** Closes the shared pools' sockets (tests, shutdown); the next call opens new ones. */
export async function closeInternalHttpConnections(): Promise<void> {
  const closing = [sharedAgent, ...balancers.values()];
  sharedAgent = undefined;
  balancers.clear();
  await Promise.all(closing.map((d) => d?.close()));
}

/** A Retry-After we relay: delay-seconds or an HTTP date, nothing else (it is copied into our answer). */
const RETRY_AFTER = /^(\d{1,9}|[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT)$/;

/**
 * The upstream's refusals of THIS service's own credential. They say nothing about the end
 * client's request (a stale or mistyped INTERNAL_SERVICE_KEY, a caller table that lacks us), so
 * they are never relayed: the end client would read 401/403 as its own fault.
 */
const CREDENTIAL_REFUSALS: ReadonlySet<string> = new Set(['INVALID_SERVICE_CREDENTIALS', 'SERVICE_NOT_ALLOWED']);

const logger = new Logger('InternalHttpClient');

/**
 * Typed service-to-service HTTP client. Every call carries the service credential, the current
 * request and correlation ids, and a timeout over the whole exchange (answer and body). Failures
 * come back as AppException with the upstream's own stable code and status (codes survive the
 * network), or UPSTREAM_UNAVAILABLE / UPSTREAM_TIMEOUT. An upstream's Retry-After travels with
 * the error it came with, so that the caller's answer tells the end client when to try again.
 * An upstream that refuses our service credential (INVALID_SERVICE_CREDENTIALS,
 * SERVICE_NOT_ALLOWED) is a platform misconfiguration: logged at ERROR naming the upstream, and
 * answered UPSTREAM_UNAVAILABLE.
 */
export class InternalHttpClient {
  private readonly base: URL;
  /** set when there are several replicas: the requests' origin is then the balancer's choice */
  private readonly origins?: UpstreamUrls;

  constructor(private readonly options: InternalClientOptions) {
    const bases = typeof options.baseUrl === 'string' ? [options.baseUrl] : options.baseUrl;
    if (bases.length === 0) throw new Error(`${options.name}: no base URL`);
    // Replicas' items are bare origins (the config rule), so paths resolve the same against any.
    this.base = new URL(bases[0]);
    if (bases.length > 1) this.origins = bases.map((b) => new URL(b).origin);
  }

  get<T>(path: string, req: InternalRequest = {}): Promise<T> {
    return this.request<T>('GET', path, req).then((r) => r.body);
  }
  post<T>(path: string, body?: unknown, req: InternalRequest = {}): Promise<T> {
    return this.request<T>('POST', path, { ...req, body }).then((r) => r.body);
  }
  put<T>(path: string, body?: unknown, req: InternalRequest = {}): Promise<T> {
    return this.request<T>('PUT', path, { ...req, body }).then((r) => r.body);
  }
  delete<T>(path: string, req: InternalRequest = {}): Promise<T> {
    return this.request<T>('DELETE', path, req).then((r) => r.body);
  }

  async request<T>(method: string, path: string, req: InternalRequest = {}): Promise<InternalResponse<T>> {
    const ctx = currentContext();
    const headers: Record<string, string> = { accept: 'application/json', [SERVICE_KEY_HEADER]: this.options.serviceKey, ...req.headers };
    if (ctx) {
      headers['x-request-id'] = ctx.requestId;
      headers['x-correlation-id'] = ctx.correlationId;
    }
    if (req.idempotencyKey) headers['x-idempotency-key'] = req.idempotencyKey;
    if (req.body !== undefined) headers['content-type'] = 'application/json';

    // Resolved as `fetch(new URL(path, baseUrl))` did, so relative paths and a base path behave the same.
    const url = new URL(path, this.base);

    // One timer for the whole exchange, cleared when it ends (AbortSignal.timeout's timer would
    // stay armed and fire later for every finished call).
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, req.timeoutMs ?? this.options.timeoutMs);

    let status: number;
    let responseHeaders: IncomingHttpHeaders;
    let text: string;
    try {
      const res = await (this.origins ? balancer(this.origins) : agent()).request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: method as Dispatcher.HttpMethod,
        headers,
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        signal: abort.signal,
      });
      status = res.statusCode;
      responseHeaders = res.headers;
      text = await res.body.text();
    } catch (error) {
      // The transport's error (ECONNREFUSED, a reset…) goes with it, for the log line only.
      throw timedOut
        ? new AppException('UPSTREAM_TIMEOUT', `${this.options.name} did not answer in time`, { cause: error })
        : new AppException('UPSTREAM_UNAVAILABLE', `${this.options.name} is unavailable`, { cause: error });
    } finally {
      clearTimeout(timer);
    }

    let body: unknown = undefined;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    if (status >= 200 && status < 300) return { status, headers: responseHeaders, body: body as T };

    const retryAfter = retryAfterOf(responseHeaders);
    const error = body as { code?: unknown; message?: unknown; errors?: FieldError[] } | undefined;
    if (error && isErrorCode(error.code) && CREDENTIAL_REFUSALS.has(error.code)) {
      logger.error(
        { upstream: this.options.name, code: error.code, status, path: url.pathname },
        `${this.options.name} refused this service's credential: check INTERNAL_SERVICE_KEY here and the upstream's trusted callers and caller table`,
      );
      throw new AppException('UPSTREAM_UNAVAILABLE', `${this.options.name} is unavailable`);
    }
    if (error && isErrorCode(error.code)) {
      // The upstream's code and status are relayed as they are, and so is the delay it asked for.
      throw new AppException(error.code, typeof error.message === 'string' ? error.message : undefined, {
        status,
        errors: error.errors,
        ...(retryAfter ? { headers: { 'retry-after': retryAfter } } : {}),
      });
    }
    // An answer without our error body (a proxy, a crash page): only an overload or a throttle's delay is kept.
    const keep = retryAfter && (status === 429 || status === 503);
    throw new AppException(
      'UPSTREAM_UNAVAILABLE',
      `${this.options.name} answered ${status}`,
      keep ? { headers: { 'retry-after': retryAfter } } : undefined,
    );
  }
}

function retryAfterOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers['retry-after'];
  const one = Array.isArray(value) ? value[0] : value;
  return one !== undefined && RETRY_AFTER.test(one.trim()) ? one.trim() : undefined;
}
