import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

/** The platform's error body (spec README): match on `code`, show `message` to people. */
export type ErrorBody = components['schemas']['ErrorBody'];

/** A refusal of the API (or a network failure), with the platform's stable code and message. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId?: string,
    readonly fieldErrors: ReadonlyArray<{ field: string; code: string; message: string }> = [],
  ) {
    super(message);
  }

  static from(response: Response | undefined, error: unknown): ApiFailure {
    const body = (error ?? {}) as Partial<ErrorBody>;
    const status = response?.status ?? 0;
    return new ApiFailure(
      status,
      typeof body.code === 'string' ? body.code : status === 0 ? 'NETWORK_ERROR' : `HTTP_${status}`,
      typeof body.message === 'string'
        ? body.message
        : status === 0
          ? 'The platform could not be reached'
          : 'The platform refused the request',
      typeof body.requestId === 'string' ? body.requestId : undefined,
      Array.isArray(body.errors) ? (body.errors as ApiFailure['fieldErrors']) : [],
    );
  }
}

let accessToken: string | undefined;
let onUnauthorized: (() => void) | undefined;

/** Set by the session: every call carries the operator's own token, never a service key. */
export function setAccessToken(token: string | undefined, unauthorized?: () => void): void {
  accessToken = token;
  onUnauthorized = unauthorized;
}

const bearer: Middleware = {
  onRequest({ request }) {
    if (accessToken && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${accessToken}`);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401 && accessToken) onUnauthorized?.();
    return response;
  },
};

/** Same origin as the console: no CORS, no base URL to configure. */
export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(bearer);

/** The answer's data, or throws the refusal as an ApiFailure. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch {
    throw ApiFailure.from(undefined, undefined);
  }
  if (result.error !== undefined || !result.response.ok) throw ApiFailure.from(result.response, result.error);
  return result.data as T;
}
