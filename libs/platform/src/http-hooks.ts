import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppException } from '@mm/errors';
import type { MetricsService } from './metrics';
import { isUuid, isUuidV4, requestContext } from './request-context';
import type { RouteRegistry } from './route-registry';

declare module 'fastify' {
  interface FastifyRequest {
    correlationId: string;
    /**
     * The internal caller ServiceKeyGuard recognised (never its key), or null. Kept on the request
     * and written into the request line, rather than bound into a child logger per request.
     */
    serviceCaller: string | null;
  }
}

/** X-Request-Id: echo a valid incoming one, else a new UUID (docs/partners.md "Headers on every answer"). */
export function genRequestId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = req.headers['x-request-id'];
  return isUuid(incoming) ? incoming : randomUUID();
}

export interface HttpHookOptions {
  /**
   * false at the public entry point: every public request gets a fresh correlation id. A function
   * decides per request (the entry point's internal listener keeps its callers' ids).
   */
  trustIncomingCorrelationId: boolean | ((req: FastifyRequest) => boolean);
  metrics: MetricsService;
  routes: RouteRegistry;
}

/**
 * The per-request plumbing every app shares: ids into the async context and onto the response,
 * Server-Timing on every response (errors and 404s included), one log line and one metric sample
 * per request. (Errors and unknown routes reach the global AppExceptionFilter through the handlers
 * Nest installs on Fastify, so Fastify-level failures get the platform body too.)
 */
export function registerHttpHooks(fastify: FastifyInstance, options: HttpHookOptions): void {
  fastify.decorateRequest('correlationId', '');
  fastify.decorateRequest('serviceCaller', null);

  // While draining, a keep-alive connection that was busy at SIGTERM must not stay open after its
  // response (Fastify only closes the idle ones): tell the client and let Node close the socket.
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // The server reports closed when its sockets are, which can come before the last onResponse hook
  // has logged its request: shutdown waits for every started request to be logged (or aborted), so
  // no in-flight request goes unrecorded (the shutdown timeout still bounds the wait).
  let inFlight = 0;
  fastify.addHook('onClose', async () => {
    while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  });
  fastify.addHook('onRequestAbort', (_req, done) => {
    inFlight--;
    done();
  });

  fastify.addHook('onRequest', (req, reply, done) => {
    inFlight++;
    const incoming = req.headers['x-correlation-id'];
    const trust =
      typeof options.trustIncomingCorrelationId === 'function'
        ? options.trustIncomingCorrelationId(req)
        : options.trustIncomingCorrelationId;
    req.correlationId = trust && isUuidV4(incoming) ? incoming : randomUUID();
    reply.header('x-request-id', req.id);
    reply.header('x-correlation-id', req.correlationId);
    requestContext.run({ requestId: req.id, correlationId: req.correlationId }, done);
  });

  fastify.addHook('onSend', (req, reply, payload, done) => {
    // Set last, so a proxied upstream's own header is replaced by this hop's total.
    reply.header('x-request-id', req.id);
    reply.header('x-correlation-id', req.correlationId);
    reply.header('server-timing', `total;dur=${reply.elapsedTime.toFixed(1)}`);
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });

  fastify.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    const durationMs = Math.round(reply.elapsedTime * 10) / 10;
    options.metrics.httpDuration.observe({ method: req.method, route, status: String(reply.statusCode) }, durationMs / 1000);
    if (route !== '/health' && route !== '/health/live' && route !== '/metrics') {
      // `caller` is left out of the line (pino skips undefined) on requests no service made.
      const caller = req.serviceCaller ?? undefined;
      req.log.info({ method: req.method, url: req.url.split('?')[0], route, status: reply.statusCode, durationMs, caller }, 'request');
    }
    inFlight--;
    done();
  });
}

/**
 * A request no route matches is answered before its body is read (404, or 405 with Allow when the
 * path exists under other methods): Fastify would judge the body first, and answer a QUERY without
 * Content-Type, or an unreadable body on a path that does not exist, with a 400. Registered after
 * the public listener's restriction, so that an internal route is a plain 404 from the Internet,
 * never a 405 that tells it exists.
 */
export function answerRouteMissBeforeBody(fastify: FastifyInstance, routes: RouteRegistry): void {
  fastify.addHook('onRequest', async (req) => {
    if (req.is404) throw routeMiss(req, routes);
  });
}

/** The exception for a request no route matched: 405 when the path exists under other methods. */
export function routeMiss(req: FastifyRequest, routes: RouteRegistry): AppException {
  const path = req.url.split('?')[0];
  const allowed = routes.allowedMethods(path);
  if (allowed.length > 0 && !allowed.includes(req.method)) {
    return new AppException('METHOD_NOT_ALLOWED', `Method ${req.method} not allowed on ${path}`, {
      headers: { allow: allowed.join(', ') },
    });
  }
  return new AppException('NOT_FOUND', `Route ${req.method} ${path} not found`);
}
