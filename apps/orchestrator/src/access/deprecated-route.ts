import { type CanActivate, type ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply } from 'fastify';

export const DEPRECATED_ROUTE = 'mm:deprecated-route';

/** When the auth routes moved to the orchestrator were marked deprecated (as on auth). */
const DEPRECATED_SINCE = Math.floor(Date.UTC(2026, 10, 1) / 1000);

/**
 * A deprecated route: every answer carries `Deprecation: @<epoch>` (RFC 9745) and a `Link` to the
 * route replacing it. Pair with `@ApiOperation({ deprecated: true })`.
 */
export const DeprecatedRoute = (successor: string) => SetMetadata(DEPRECATED_ROUTE, successor);

/**
 * Global guard registered before the access guard, so that even a refusal (no token, validation)
 * of a deprecated route carries the headers. It never refuses anything.
 */
@Injectable()
export class DeprecationHeaders implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const successor = this.reflector.get<string | undefined>(DEPRECATED_ROUTE, context.getHandler());
    if (successor) {
      const reply = context.switchToHttp().getResponse<FastifyReply>();
      reply.header('deprecation', `@${DEPRECATED_SINCE}`);
      reply.header('link', `<${successor}>; rel="successor-version"`);
    }
    return true;
  }
}
