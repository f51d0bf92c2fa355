import { Readable } from 'node:stream';
import { Transform } from 'class-transformer';
import { isURL } from 'class-validator';
import { BalancedPool, type Dispatcher, type Pool } from 'undici';
import { ConfigRule } from './config';

/**
 * Where a service is reached: one base URL (compose and Kubernetes give one per service) or the
 * base URLs of its replicas (`npm start` with MM_REPLICAS > 1), comma-separated in the variable.
 */
export type UpstreamUrls = string[];

const URL_RULE = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };

/** "http://a:1, http://b:2" → its items, trimmed; a value that is not text is left to the rule. */
export function parseUpstreams(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * What is wrong with a parsed list, as a phrase that follows the variable's name (never the value:
 * a URL may carry credentials). Several replicas are balanced by origin, so their items must be
 * bare origins: a path could not differ from one replica to the next.
 */
export function upstreamsProblem(value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length === 0) return 'must be a base URL, or several separated by commas';
  for (const [index, item] of value.entries()) {
    const which = value.length === 1 ? '' : ` (item ${index + 1})`;
    if (typeof item !== 'string' || !isURL(item, URL_RULE)) return `must be an http(s) URL${which}`;
    if (value.length > 1) {
      const url = new URL(item);
      if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '') return `items must be origins without a path${which}`;
    }
  }
  const origins = value.map((item: string) => new URL(item).origin);
  if (new Set(origins).size !== origins.length) return 'names the same replica twice';
  return undefined;
}

/** A config field holding a service's base URL or its replicas' (see `UpstreamUrls`). */
export function UpstreamsField(): PropertyDecorator {
  return (target, key) => {
    // The raw variable, as EnvBoolean reads it: implicit conversion must not see the text first.
    Transform(({ obj, key: name, value }) => parseUpstreams((obj as Record<string, unknown>)[name] ?? value))(target, key);
    ConfigRule('upstreams', (value) => upstreamsProblem(value))(target, key);
  };
}

/** A single URL as it was (so one replica behaves exactly as before), the first of several otherwise. */
export function primaryUpstream(upstreams: string | UpstreamUrls): string {
  return typeof upstreams === 'string' ? upstreams : upstreams[0];
}

/**
 * Failures that happen before a request is handed to a socket: nothing of it reached the server,
 * so sending it to another replica cannot do anything twice, whatever the method.
 */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/**
 * Wraps the caller's handler. undici calls `onRequestStart` right before it writes the request
 * on a connected socket; an error before that means the request never left this process (the
 * connection was refused or timed out, or the socket closed while it waited in the queue). Such a
 * request is dispatched once more, and the balancer gives it to the next replica. An error after
 * that point is the caller's, untouched: whether to retry then depends on idempotency, which
 * only the caller knows.
 */
class RetryUnsentOnce implements Dispatcher.DispatchHandler {
  private started = false;
  private retried = false;

  constructor(
    private readonly opts: Dispatcher.DispatchOptions,
    private readonly handler: Dispatcher.DispatchHandler,
    private readonly dispatch: Dispatcher['dispatch'],
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.started = true;
    this.handler.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[]>,
    socket: never,
  ): void {
    this.handler.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[]>,
    statusMessage?: string,
  ): void {
    this.handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.handler.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: Record<string, string | string[]>): void {
    this.handler.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    if (this.started || this.retried || !notSent(error) || !resendable(this.opts.body)) {
      this.handler.onResponseError?.(controller, error);
      return;
    }
    this.retried = true;
    // Outside undici's error path: the failed pool finishes its own bookkeeping (its weight) first.
    setImmediate(() => this.dispatch(this.opts, this));
  }
}

function notSent(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && NOT_SENT_CODES.has(code);
}

/** A body already read from (a stream) cannot be sent again; text and buffers can. */
function resendable(body: Dispatcher.DispatchOptions['body']): boolean {
  if (body === null || body === undefined || typeof body === 'string' || Buffer.isBuffer(body) || body instanceof Uint8Array) return true;
  if (typeof (body as { pipe?: unknown }).pipe === 'function') return !Readable.isDisturbed(body as NodeJS.ReadableStream);
  return false;
}

const retryUnsentOnce: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) =>
  dispatch(opts, new RetryUnsentOnce(opts, handler, dispatch));

/**
 * A keep-alive pool per replica behind one dispatcher. undici's BalancedPool picks replicas by
 * weighted round robin; a replica whose connections fail loses weight down to a floor (it still
 * gets an occasional request, which is how it is found alive again) and regains it with each
 * connection that succeeds. A request that could not be sent to one replica goes to the next
 * (see RetryUnsentOnce). Requests need no `origin`: the pool chooses it.
 */
export function createBalancer(upstreams: UpstreamUrls, options: Pool.Options = {}): Dispatcher {
  const origins = upstreams.map((u) => new URL(u).origin);
  return new BalancedPool(origins, options).compose(retryUnsentOnce);
}
