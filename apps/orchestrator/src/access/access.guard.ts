import { type CanActivate, type ExecutionContext, Injectable, type Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AppException } from '@mm/errors';
import { PlatformHealthController } from '../gateway/platform-health.controller';
import { AccessTokens } from './access-tokens.service';
import { type AuthUser, INTERNAL_ROUTE, PUBLIC_ROUTE, type Permission, REQUIRED_PERMISSIONS } from './permissions';
import { permissionsOf, primaryRole } from './role-matrix';

/**
 * Controllers that predate the guard and are public by design (GET /api/health, docs/operations.md "Health"). Listed here
 * rather than decorated because they belong to another module.
 */
const PUBLIC_CONTROLLERS: ReadonlySet<Type> = new Set([PlatformHealthController]);

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

/**
 * The one access guard of the orchestrator's own routes (registered as APP_GUARD, so it only ever
 * sees Nest routes: the proxied `/api/auth/*` and `/api/partners-public/*`, `/health`, `/metrics`
 * and `/openapi.json` are plain Fastify routes it never runs on).
 *
 * - `@PublicRoute()`: passes (a token, if sent, is ignored).
 * - `@InternalRoute()`: left to ServiceKeyGuard (service key, no user).
 * - anything else: a verified, unrevoked access token (401 UNAUTHORIZED without one, TOKEN_INVALID,
 *   TOKEN_EXPIRED, TOKEN_REVOKED, 403 ACCOUNT_DISABLED for a frozen account), then every permission
 *   of `@RequirePermission(...)` through the role matrix (403 FORBIDDEN). A route that declares no
 *   permission still needs an authenticated user: nothing is public by omission.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: AccessTokens,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    if (this.reflector.getAllAndOverride<boolean>(INTERNAL_ROUTE, targets)) return true;
    if (PUBLIC_CONTROLLERS.has(context.getClass())) return true;

    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: AuthUser }>();
    const token = bearerToken(request);
    if (!token) throw new AppException('UNAUTHORIZED', 'An access token is required (Authorization: Bearer <token>)');
    const session = await this.tokens.verify(token);
    const role = primaryRole(session.roles);
    if (!role) throw new AppException('FORBIDDEN', 'The account has no application role');
    const permissions = permissionsOf(session.roles);

    const required = this.reflector.getAllAndOverride<Permission[] | undefined>(REQUIRED_PERMISSIONS, targets) ?? [];
    const missing = required.filter((p) => !permissions.includes(p));
    if (missing.length > 0) throw new AppException('FORBIDDEN', `This requires the ${missing.join(', ')} permission`);

    request.user = { userId: session.userId, sessionId: session.sessionId, role, permissions, accessToken: token };
    return true;
  }
}
