import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { type JwksVerifier, createJwksVerifier } from '@mm/platform';
import { CorrectionsSettings } from './corrections.settings';

/** An operator as auth vouches for them: the access token's subject and roles. */
export interface OperatorIdentity {
  id: string;
  roles: string[];
  /** the token's `jti`, journaled with each step */
  tokenId: string;
}

/**
 * Operator identity for corrections and holds, proven by an access token auth signed (verified
 * offline against auth's JWKS: EdDSA, `at+jwt`, issuer, audience, lifetime ≤ 15 min), never by a
 * name in the body. The token's `roles` claim decides what the operator may do. A session revoked
 * at auth keeps its token valid here until it expires (at most the access-token lifetime): the
 * ledger calls nobody on its money path, and the second person of maker-checker bounds the risk.
 */
@Injectable()
export class OperatorTokens {
  private readonly verifyJwt: JwksVerifier;

  constructor(settings: CorrectionsSettings) {
    this.verifyJwt = createJwksVerifier({
      jwksUrl: settings.operatorJwksUrl,
      issuer: settings.operatorIssuer,
      audience: settings.operatorAudience,
      typ: 'at+jwt',
      requiredClaims: ['jti', 'roles'],
    });
  }

  /** From `Authorization: Bearer <token>`: 401 OPERATOR_TOKEN_REQUIRED / TOKEN_INVALID / TOKEN_EXPIRED. */
  async identify(authorization: string | undefined): Promise<OperatorIdentity> {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    if (!match) throw new AppException('OPERATOR_TOKEN_REQUIRED');
    const claims = await this.verifyJwt(match[1]);
    const { sub, jti, roles } = claims as { sub?: unknown; jti?: unknown; roles?: unknown };
    if (typeof sub !== 'string' || !sub || typeof jti !== 'string' || !Array.isArray(roles) || roles.some((r) => typeof r !== 'string')) {
      throw new AppException('TOKEN_INVALID', 'The access token does not carry a subject, an id and roles');
    }
    return { id: sub, roles: roles as string[], tokenId: jti };
  }

  /** 403 OPERATOR_ROLE_REQUIRED unless the operator holds one of `allowed`. */
  static require(operator: OperatorIdentity, allowed: readonly string[], step: string): void {
    if (!OperatorTokens.holds(operator, allowed)) {
      throw new AppException('OPERATOR_ROLE_REQUIRED', `To ${step} you need one of the roles ${allowed.join(', ')}`);
    }
  }

  static holds(operator: OperatorIdentity, roles: readonly string[]): boolean {
    return operator.roles.some((r) => roles.includes(r));
  }
}
