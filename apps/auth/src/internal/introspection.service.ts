import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import type { Role } from '../common/roles';
import { AccessTokenService } from '../sessions/access-token.service';
import { SessionService } from '../sessions/session.service';

export type Introspection =
  { active: false; reason: string } | { active: true; sub: string; sid: string; jti: string; roles: Role[]; exp: number };

/**
 * RFC 7662-style answer for services that must know a token is still good *now* (money moves):
 * signature, lifetime and session state. Services that accept a few seconds of staleness verify
 * the JWT with the JWKS and check the Redis revocation marker instead.
 */
@Injectable()
export class IntrospectionService {
  constructor(
    private readonly tokens: AccessTokenService,
    private readonly sessions: SessionService,
  ) {}

  async introspect(token: string): Promise<Introspection> {
    try {
      const claims = await this.tokens.verify(token);
      const session = await this.sessions.active(claims.sid, claims.sub);
      return { active: true, sub: claims.sub, sid: claims.sid, jti: claims.jti, roles: session.roles, exp: claims.exp };
    } catch (error) {
      if (error instanceof AppException) return { active: false, reason: error.code };
      throw error;
    }
  }
}
