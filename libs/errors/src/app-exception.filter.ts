import { type ArgumentsHost, Catch, type ExceptionFilter, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describeError } from './describe-error';
import type { ErrorBody } from './error-body';

/**
 * Renders every error as the platform error body. Registered by the shared bootstrap for Nest
 * handlers, and reused (`sendError`) by Fastify's own error and not-found handlers so that body
 * parsing failures, unknown routes and proxy failures look exactly the same.
 */
export function sendError(request: FastifyRequest, reply: FastifyReply, exception: unknown): void {
  const described = describeError(exception);
  if (described.unexpected) {
    request.log.error({ err: exception }, 'unhandled error');
  } else if (described.unavailable) {
    const e = exception as { code?: unknown; message?: unknown; cause?: unknown };
    const cause = e.cause as { code?: unknown; message?: unknown } | undefined;
    const pool = poolExhaustionOf(exception);
    if (pool) {
      // Not an outage: this process's own connections were all taken (see the holders).
      request.log.warn({ err: { message: String(e.message).slice(0, 300) }, pool }, 'database connection pool exhausted');
    } else {
      request.log.warn(
        {
          err: { code: e.code, message: String(e.message).slice(0, 200) },
          ...(cause ? { cause: { code: cause.code, message: String(cause.message).slice(0, 200) } } : {}),
        },
        'backing service unavailable',
      );
    }
  }
  const body: ErrorBody = { code: described.code, message: described.message, requestId: String(request.id) };
  if (described.errors) body.errors = described.errors;
  if (reply.sent) return;
  if (described.headers) reply.headers(described.headers);
  void reply.status(described.status).type('application/json; charset=utf-8').send(body);
}

/**
 * The pool state a checkout timeout carries (libs/platform db-pool-logging.ts sets `pool` on
 * pg-pool's error), on the error itself or on the driver error a TypeORM wrapper holds.
 */
function poolExhaustionOf(error: unknown): Record<string, unknown> | undefined {
  let e = error;
  for (let depth = 0; typeof e === 'object' && e !== null && depth < 4; depth++) {
    const pool = (e as { pool?: { exhausted?: unknown } }).pool;
    if (typeof pool === 'object' && pool !== null && pool.exhausted === true) return pool as Record<string, unknown>;
    const inner = e as { driverError?: unknown; cause?: unknown };
    e = inner.driverError ?? inner.cause;
  }
  return undefined;
}

@Catch()
export class AppExceptionFilter implements ExceptionFilter {
  /** @param onRouteMiss turns "no route matched" into 404 NOT_FOUND or 405 METHOD_NOT_ALLOWED */
  constructor(private readonly onRouteMiss?: (request: FastifyRequest) => unknown) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    // Nest's not-found handler throws a plain NotFoundException for requests no route matched.
    const unmatched = exception instanceof NotFoundException && !request.routeOptions?.url;
    sendError(request, http.getResponse<FastifyReply>(), unmatched && this.onRouteMiss ? this.onRouteMiss(request) : exception);
  }
}
