import { type KeyObject, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type JSONWebKeySet, type CompactJWSHeaderParameters, SignJWT, errors as joseErrors, exportJWK, jwtVerify } from 'jose';
import { AppException } from '@mm/errors';
import { AuthConfig } from '../auth.config';
import type { Role } from '../common/roles';
import { AuthSecrets } from '../crypto/auth-secrets';
import { requiresSecondFactor } from '../second-factor/staff-roles';

/** The claims of an access token once its signature and lifetime are checked. */
export interface AccessClaims {
  sub: string;
  sid: string;
  jti: string;
  roles: Role[];
  exp: number;
  iat: number;
}

const ALG = 'EdDSA';
const TYP = 'at+jwt';

/**
 * Access tokens: EdDSA (Ed25519) JWTs, at most 15 minutes, with `jti`, `sub` (local user id),
 * `sid` (session), `roles`. Other services verify them offline with the JWKS; revocation
 * (logout, PIN change/reset) is checked against the session (see SessionService / introspection).
 */
@Injectable()
export class AccessTokenService {
  private jwksCache?: Promise<JSONWebKeySet>;

  constructor(
    @Inject(AuthConfig) private readonly config: AuthConfig,
    private readonly secrets: AuthSecrets,
  ) {}

  async issue(userId: string, sessionId: string, roles: Role[]): Promise<{ token: string; expiresAt: Date; jti: string }> {
    const jti = randomUUID();
    const now = Math.floor(Date.now() / 1000);
    // Staff tokens are shorter-lived (docs/operators.md "Sessions and signing out"): their holders can move other people's money.
    const exp = now + (requiresSecondFactor(roles) ? this.config.STAFF_ACCESS_TOKEN_TTL_SEC : this.config.ACCESS_TOKEN_TTL_SEC);
    const token = await new SignJWT({ sid: sessionId, roles })
      .setProtectedHeader({ alg: ALG, kid: this.secrets.signing.kid, typ: TYP })
      .setIssuer(this.config.JWT_ISSUER)
      .setAudience(this.config.JWT_AUDIENCE)
      .setSubject(userId)
      .setJti(jti)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .sign(this.secrets.signing.privateKey);
    return { token, expiresAt: new Date(exp * 1000), jti };
  }

  /**
   * Signature (one of our published keys, chosen by the token's `kid`; EdDSA only: `alg: none` and
   * HS256 tricks fail here), type, issuer, audience, lifetime. The next and previous keys verify
   * too, so during a rotation instances on the old and the new configuration accept each other's
   * tokens.
   */
  async verify(token: string, options: { ignoreExpiry?: boolean } = {}): Promise<AccessClaims> {
    try {
      const { payload } = await jwtVerify(token, this.keyFor, {
        algorithms: [ALG],
        typ: TYP,
        issuer: this.config.JWT_ISSUER,
        audience: this.config.JWT_AUDIENCE,
        requiredClaims: ['sub', 'jti', 'exp', 'iat'],
        // jose has no "skip exp": a huge tolerance is the same thing, for the one caller that needs it.
        clockTolerance: options.ignoreExpiry ? 10 * 365 * 24 * 3600 : 5,
      });
      const { sub, sid, jti, roles, exp, iat } = payload as Partial<AccessClaims>;
      if (
        typeof sub !== 'string' ||
        typeof sid !== 'string' ||
        typeof jti !== 'string' ||
        !Array.isArray(roles) ||
        typeof exp !== 'number' ||
        typeof iat !== 'number'
      ) {
        throw new AppException('TOKEN_INVALID');
      }
      return { sub, sid, jti, roles, exp, iat };
    } catch (error) {
      if (error instanceof AppException) throw error;
      if (error instanceof joseErrors.JWTExpired) throw new AppException('TOKEN_EXPIRED');
      throw new AppException('TOKEN_INVALID');
    }
  }

  /**
   * The public key set other services verify with (`GET /auth/.well-known/jwks.json`): the signing
   * key first, then the next and the previous key when configured, each under its `kid`.
   */
  jwks(): Promise<JSONWebKeySet> {
    this.jwksCache ??= Promise.all(
      this.secrets.verificationKeys.map(async (key) => ({ ...(await exportJWK(key.publicKey)), kid: key.kid, alg: ALG, use: 'sig' })),
    ).then((keys) => ({ keys }));
    return this.jwksCache;
  }

  /** The published key named by the token's `kid`; none (no `kid`, or one we do not publish) is TOKEN_INVALID. */
  private readonly keyFor = (header: CompactJWSHeaderParameters): KeyObject => {
    const key = this.secrets.verificationKeys.find((k) => k.kid === header.kid);
    if (!key) throw new joseErrors.JWKSNoMatchingKey();
    return key.publicKey;
  };
}
