import { AppException, isErrorCode, type FieldError } from '@mm/errors';
import { currentContext } from './request-context';
import { SERVICE_KEY_HEADER } from './service-key.guard';

export interface InternalClientOptions {
  /** name of the upstream, for messages and logs */
  name: string;
  baseUrl: string;
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
  headers: Headers;
  body: T;
}

/**
 * Typed service-to-service HTTP client. Every call carries the service credential, the current
 * request and correlation ids, and a timeout. Failures come back as AppException with the
 * upstream's own stable code (codes survive the network), or UPSTREAM_UNAVAILABLE / UPSTREAM_TIMEOUT.
 */
export class InternalHttpClient {
  constructor(private readonly options: InternalClientOptions) {}

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

    const url = new URL(path, this.options.baseUrl).toString();
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        signal: AbortSignal.timeout(req.timeoutMs ?? this.options.timeoutMs),
      });
    } catch (error) {
      // By name, not instanceof: the abort is a DOMException, which may come from another realm.
      const name = (error as { name?: unknown } | null)?.name;
      const timedOut = name === 'TimeoutError' || name === 'AbortError';
      throw timedOut
        ? new AppException('UPSTREAM_TIMEOUT', `${this.options.name} did not answer in time`)
        : new AppException('UPSTREAM_UNAVAILABLE', `${this.options.name} is unavailable`);
    }

    const text = await res.text();
    let body: unknown = undefined;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    if (res.ok) return { status: res.status, headers: res.headers, body: body as T };

    const error = body as { code?: unknown; message?: unknown; errors?: FieldError[] } | undefined;
    if (error && isErrorCode(error.code)) {
      throw new AppException(error.code, typeof error.message === 'string' ? error.message : undefined, {
        status: res.status,
        errors: error.errors,
      });
    }
    throw new AppException('UPSTREAM_UNAVAILABLE', `${this.options.name} answered ${res.status}`);
  }
}
