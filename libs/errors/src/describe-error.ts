import { HttpException } from '@nestjs/common';
import { AppException, type FieldError } from './app-exception';
import { ERROR_CATALOG, type ErrorCode } from './error-codes';

export interface DescribedError {
  status: number;
  code: ErrorCode;
  message: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
  /** true when the cause is unexpected and must be logged with its stack */
  unexpected: boolean;
  /**
   * true when a backing service (database, Redis) or an upstream was unreachable: logged as a
   * warning with its cause's code and message, without a stack
   */
  unavailable?: boolean;
}

/** Fastify's own request-level errors (body parsing, limits) and the code each one becomes. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_CTP_INVALID_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_BAD_URL: 'BAD_REQUEST',
  FST_ERR_ASYNC_CONSTRAINT: 'BAD_REQUEST',
};

/**
 * A backing service (PostgreSQL, Redis) that cannot be reached or dropped the connection: SQLSTATE
 * class 08 (connection exception), 57P01-57P03 (the server is shutting down or starting), 53300 (no
 * connection slot), the socket errors of a refused or cut connection, and the pg driver's own
 * messages for a connection it lost or could not open in time. The request may succeed when retried.
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed|Client was closed and is not queryable)/;

export function isBackingServiceUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const e = error as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && (UNAVAILABLE_SQLSTATE.test(e.code) || UNAVAILABLE_ERRNO.has(e.code))) return true;
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)) return true;
  // TypeORM wraps the driver's error; Node wraps connection attempts to several addresses in an AggregateError.
  const nested = [e.driverError, e.cause, ...(Array.isArray(e.errors) ? e.errors : [])];
  return nested.some((inner) => inner !== error && isBackingServiceUnavailable(inner, depth + 1));
}

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  502: 'UPSTREAM_UNAVAILABLE',
  503: 'SERVICE_UNAVAILABLE',
  504: 'UPSTREAM_TIMEOUT',
};

function fromCode(code: ErrorCode, message?: string): DescribedError {
  const entry = ERROR_CATALOG[code];
  return { status: entry.status, code, message: message ?? entry.message, unexpected: entry.status >= 500 && code === 'INTERNAL_ERROR' };
}

/**
 * Maps anything thrown while serving a request to a stable code and status. Only AppException
 * messages and our own generic texts reach the client: a 500 never carries a stack, SQL or class name.
 */
export function describeError(exception: unknown): DescribedError {
  if (exception instanceof AppException) {
    return {
      status: exception.status,
      code: exception.code,
      message: exception.message,
      errors: exception.code === 'VALIDATION_ERROR' ? (exception.errors ?? []) : undefined,
      headers: exception.details?.headers,
      unexpected: exception.code === 'INTERNAL_ERROR',
      // A 5xx raised because something underneath failed (an upstream unreachable): a warning with its cause.
      unavailable: exception.status >= 500 && exception.cause !== undefined,
    };
  }
  const err = exception as { code?: unknown; statusCode?: unknown; name?: unknown } | null;
  if (err && typeof err.code === 'string' && FASTIFY_CODES[err.code]) {
    return fromCode(FASTIFY_CODES[err.code]);
  }
  // Fastify's JSON parser throws a SyntaxError tagged with statusCode 400.
  if (exception instanceof SyntaxError && err?.statusCode === 400) {
    return fromCode('MALFORMED_JSON');
  }
  if (exception instanceof HttpException) {
    // Nest wraps Fastify's own errors (body parsing, limits) in an HttpException: judge the cause.
    if (exception.cause !== undefined) {
      const cause = describeError(exception.cause);
      if (!cause.unexpected) return cause;
    }
    const status = exception.getStatus();
    const code = STATUS_CODES[status];
    if (code) return fromCode(code);
    return status >= 500 ? { ...fromCode('INTERNAL_ERROR'), unexpected: true } : { ...fromCode('BAD_REQUEST'), status };
  }
  if (err && typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return fromCode(STATUS_CODES[err.statusCode] ?? 'BAD_REQUEST');
  }
  // A database or Redis outage is not a bug: 503 with a retry hint, the driver's text never shown.
  if (isBackingServiceUnavailable(exception)) {
    return { ...fromCode('SERVICE_UNAVAILABLE'), headers: { 'retry-after': '1' }, unexpected: false, unavailable: true };
  }
  return { ...fromCode('INTERNAL_ERROR'), unexpected: true };
}
