import proxy from '@fastify/http-proxy';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppException, sendError } from '@mm/errors';
import { SERVICE_KEY_HEADER, type UpstreamUrls, createBalancer, normaliseRequestPath, primaryUpstream } from '@mm/platform';
import type { OrchestratorConfig } from '../orchestrator.config';
import type { GatewayMount } from './public-document';
import { limitProxiedBody, oversizedBodyAnswer } from './proxied-body';
import { isInternalRoute } from './public-surface';

/**
 * The routing table (docs/architecture.md "Processes and ports"), for the rows served by another process:
 *   /api/auth/*            → auth      (/auth/*)   except register* and reset-pin/confirm, which are
 *                                                   orchestrator routes (static routes win in Fastify's router)
 *   /api/partners-public/* → partners  (/partners-public/*)
 * /api/config/* and everything else are the orchestrator's own Nest routes.
 */
export function gatewayMounts(config: OrchestratorConfig): GatewayMount[] {
  return [
    { name: 'auth', publicPrefix: '/api/auth', baseUrl: config.AUTH_URL, upstreamPrefix: '/auth' },
    { name: 'partners', publicPrefix: '/api/partners-public', baseUrl: config.PARTNERS_URL, upstreamPrefix: '/partners-public' },
  ];
}

export async function registerGateway(fastify: FastifyInstance, config: OrchestratorConfig): Promise<void> {
  const routes = gatewayMounts(config).map((mount) => ({
    name: mount.name,
    prefix: mount.publicPrefix,
    upstream: mount.baseUrl,
    rewritePrefix: mount.upstreamPrefix,
  }));
  // One scope around the proxies, with the platform's error handler: a plugin scope keeps the error
  // handler of its parent as it was when it was created, and the proxies are registered before Nest
  // installs its own on the root, so refusals here (the preHandler's, a hook's, a body limit) would
  // otherwise get Fastify's `{statusCode, error, message}` body without a requestId.
  await fastify.register(async (scope) => {
    scope.setErrorHandler((error, req, reply) => sendError(req, reply, error));
    for (const route of routes) await registerProxy(scope, route, config);
  });
}

interface ProxyRoute {
  name: string;
  prefix: string;
  upstream: string | UpstreamUrls;
  rewritePrefix: string;
}

/** The proxy's connections to one upstream: at most 128 sockets, one request on each at a time. */
const PROXY_POOL = { connections: 128, pipelining: 1, connectTimeout: 2_000 };

async function registerProxy(fastify: FastifyInstance, route: ProxyRoute, config: OrchestratorConfig): Promise<void> {
  const replicas = typeof route.upstream === 'string' ? [route.upstream] : route.upstream;
  // Several replicas: one keep-alive pool each behind a balancer (see createBalancer); the proxy
  // still resolves paths against the first, whose origin the balancer replaces.
  const balancer = replicas.length > 1 ? createBalancer(replicas, PROXY_POOL) : undefined;
  if (balancer) fastify.addHook('onClose', async () => balancer.close());
  await fastify.register(proxy, {
    upstream: primaryUpstream(route.upstream),
    prefix: route.prefix,
    rewritePrefix: route.rewritePrefix,
    // Nothing is proxied to an upstream's internal endpoints, whatever the listener: the
    // orchestrator calls them directly. Decided on the normalised path (the proxy resolves `..`
    // when it builds the upstream URL, and upstreams decode escapes), never on the raw URL.
    preHandler: async (req: FastifyRequest, reply: FastifyReply) => {
      const normalised = normaliseRequestPath(req.url);
      if (!normalised.ok) throw new AppException('BAD_REQUEST', 'The request path must be in canonical form');
      if (isInternalRoute(normalised.path)) {
        throw new AppException('NOT_FOUND', `Route ${req.method} ${req.url.split('?')[0]} not found`);
      }
      limitProxiedBody(req, reply, config.BODY_LIMIT_BYTES);
    },
    undici: balancer ?? PROXY_POOL,
    replyOptions: {
      timeout: config.UPSTREAM_TIMEOUT_MS,
      rewriteRequestHeaders: (req, headers) => {
        const forwarded: Record<string, unknown> = { ...headers, 'x-request-id': req.id, 'x-correlation-id': req.correlationId };
        // Append the peer we actually saw: upstreams trust only the last entry, never the client's.
        const prior = headers['x-forwarded-for'];
        forwarded['x-forwarded-for'] = prior ? `${String(prior)}, ${req.ip}` : req.ip;
        delete forwarded[SERVICE_KEY_HEADER];
        // The client's `Expect: 100-continue` was answered by this server before the body was
        // read; undici refuses to send the header at all (UND_ERR_NOT_SUPPORTED, which was a 502).
        delete forwarded.expect;
        return forwarded as typeof headers;
      },
      onError: (raw, { error }) => {
        const reply = raw as unknown as FastifyReply;
        const oversized = oversizedBodyAnswer(error, reply);
        if (oversized) return sendError(reply.request, reply, oversized);
        const timedOut = (error as { statusCode?: number }).statusCode === 504;
        reply.request.log.warn({ upstream: route.name, err: error }, 'upstream call failed');
        sendError(
          reply.request,
          reply,
          new AppException(
            timedOut ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNAVAILABLE',
            timedOut ? `${route.name} did not answer in time` : `${route.name} is unavailable`,
          ),
        );
      },
    },
  });
}

/**
 * `/hz/<service>` (staging and review only, docs/operations.md "Health"): each service's own `/health`, reached directly
 * through the entry point, status and body as the service answered them. With several replicas,
 * the first that answers does (`/api/health` reports each of them).
 */
export function registerServiceHealthRoutes(fastify: FastifyInstance, upstreams: Record<string, UpstreamUrls>, timeoutMs: number): void {
  fastify.get<{ Params: { service: string } }>('/hz/:service', async (req, reply) => {
    if (req.params.service === 'orchestrator') {
      const own = await fastify.inject({ method: 'GET', url: '/health' });
      return reply.status(own.statusCode).type('application/json; charset=utf-8').send(own.body);
    }
    const replicas = Object.hasOwn(upstreams, req.params.service) ? upstreams[req.params.service] : undefined;
    if (!replicas) throw new AppException('NOT_FOUND', `Unknown service ${req.params.service}`);
    let res: Response | undefined;
    let timedOut = false;
    for (const base of replicas) {
      try {
        res = await fetch(new URL('/health', base), { signal: AbortSignal.timeout(timeoutMs) });
        break;
      } catch (error) {
        timedOut = (error as { name?: string }).name === 'TimeoutError';
      }
    }
    if (!res) {
      throw new AppException(
        timedOut ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNAVAILABLE',
        `${req.params.service} did not answer its health check`,
      );
    }
    return reply
      .status(res.status)
      .type('application/json; charset=utf-8')
      .send(await res.text());
  });
}
