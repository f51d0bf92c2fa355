import type { Socket } from 'node:net';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppException } from '@mm/errors';
import { normaliseRequestPath } from './path-normalisation';

/**
 * The public entry point serves the Internet and the private network from one app. Requests that
 * arrive on its public listener may reach only what `isPublic` allows (an allowlist, decided on the
 * normalised path, so a new internal route is private until someone declares it public); the
 * internal listener (internal-listener.ts) serves everything.
 */
export interface PublicSurfaceOptions {
  /** may a request with this normalised path (lower-case, decoded) arriving from the Internet reach it */
  isPublic(path: string): boolean;
  /**
   * Completes the public document before it is served (the gateway adds the routes it proxies to
   * other services); it receives the app's own public document and owns any caching.
   */
  extendDocument?(own: OpenAPIObject): Promise<OpenAPIObject>;
}

/**
 * Which requests came through the public listener: the sockets Fastify's own server accepts (the
 * one `listen` binds). Requests of the internal listener and those injected in-process (tests) did
 * not. Call before the app listens.
 */
export function trackPublicListener(fastify: FastifyInstance): (req: FastifyRequest) => boolean {
  const publicSockets = new WeakSet<Socket>();
  fastify.server.on('connection', (socket: Socket) => publicSockets.add(socket));
  return (req) => publicSockets.has(req.raw.socket);
}

/**
 * Refuses, on the public listener only, every path outside the public surface: 404 NOT_FOUND as if
 * the route did not exist, or 400 BAD_REQUEST for a path spelled with dot segments, backslashes or
 * broken escapes. Registered after the id hooks, so refusals carry X-Request-Id like any answer.
 */
export function restrictPublicListener(
  fastify: FastifyInstance,
  surface: PublicSurfaceOptions,
  viaPublicListener: (req: FastifyRequest) => boolean,
): void {
  fastify.addHook('onRequest', async (req) => {
    if (!viaPublicListener(req)) return;
    const normalised = normaliseRequestPath(req.url);
    if (!normalised.ok) throw new AppException('BAD_REQUEST', 'The request path must be in canonical form');
    if (!surface.isPublic(normalised.path)) {
      throw new AppException('NOT_FOUND', `Route ${req.method} ${req.url.split('?')[0]} not found`);
    }
  });
}

/**
 * The OpenAPI document the public listener serves: the public paths only, without the service-key
 * scheme or any operation that can be called with nothing but the service key.
 */
export function publicDocument(full: OpenAPIObject, surface: PublicSurfaceOptions): OpenAPIObject {
  const paths: OpenAPIObject['paths'] = {};
  for (const [template, item] of Object.entries(full.paths)) {
    const normalised = normaliseRequestPath(template.replace(/\{[^}]+\}/g, 'param'));
    if (!normalised.ok || !surface.isPublic(normalised.path)) continue;
    const kept = Object.fromEntries(
      Object.entries(item).filter(([, operation]) => {
        const security = (operation as { security?: Record<string, unknown>[] } | undefined)?.security;
        return !security?.length || security.some((requirement) => !('serviceKey' in requirement));
      }),
    );
    if (Object.keys(kept).length > 0) paths[template] = kept;
  }
  const schemes = { ...full.components?.securitySchemes };
  delete schemes.serviceKey;
  return {
    ...full,
    info: { ...full.info, title: `${full.info.title} (public API)` },
    paths,
    components: { ...full.components, securitySchemes: schemes },
  };
}
