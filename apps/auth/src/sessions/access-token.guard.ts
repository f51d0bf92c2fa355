import { type CanActivate, type ExecutionContext, Injectable, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppException } from '@mm/errors';
import type { Role } from '../common/roles';
import { AccessTokenService } from './access-token.service';
import { SessionService } from './session.service';

/** Who is calling, once the access token and its session are checked. */
export interface AuthContext {
  userId: string;
  sessionId: string;
  roles: Role[];
  jti: string;
  exp: number;
}

type AuthedRequest = FastifyRequest & { auth?: AuthContext };

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Protected routes: a valid access token (signature, lifetime) whose session is still live in the
 * database, so a logout or PIN change is effective at the very next request, not at token expiry.
 */
@Injectable()
export class AccessTokenGuard implements CanActivate {
  constructor(
    private readonly tokens: AccessTokenService,
    private readonly sessions: SessionService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthedRequest>();
    const token = bearerToken(request);
    if (!token) throw new AppException('TOKEN_MISSING');
    const claims = await this.tokens.verify(token);
    const session = await this.sessions.active(claims.sid, claims.sub);
    request.auth = { userId: claims.sub, sessionId: claims.sid, roles: session.roles, jti: claims.jti, exp: claims.exp };
    return true;
  }
}

export const CurrentAuth = createParamDecorator((_data: unknown, context: ExecutionContext): AuthContext => {
  const auth = context.switchToHttp().getRequest<AuthedRequest>().auth;
  if (!auth) throw new AppException('UNAUTHORIZED');
  return auth;
});
