import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { AUTH_INTERNAL_ROUTES, type IntrospectionResponse } from '@mm/contracts';
import { AppException, isErrorCode } from '@mm/errors';
import { CONFIG, InternalHttpClient, type JwksVerifier, REDIS, createJwksVerifier } from '@mm/platform';
import type { OrchestratorConfig } from '../orchestrator.config';

/** Who holds a token, as auth's session store sees it right now. */
export interface VerifiedSession {
  userId: string;
  sessionId: string;
  /** read from the session's user at auth, not from the token: a role change applies at once */
  roles: string[];
}

/** Auth's revocation marker (apps/auth sessions: `<REDIS_PREFIX>:auth:revoked-session:<sid>`). */
const revokedSessionKey = (sessionId: string): string => `auth:revoked-session:${sessionId}`;
const MAX_CACHED = 10_000;

/**
 * What the orchestrator knows about one access token (keyed by the token's SHA-256): the claims
 * that passed the offline JWT check, and auth's session answer with how long it may be reused.
 */
interface CachedToken {
  /** the token's `exp` in ms: the claims are never reused past it */
  expiresAt: number;
  /** auth's answer (its sessionId names the revocation marker to read on reuse), until sessionUntil */
  session?: VerifiedSession;
  sessionUntil: number;
}

/**
 * Access-token checks for the orchestrator's own routes, the way auth documents them:
 * 1. the JWT offline against auth's JWKS (EdDSA, `at+jwt`, issuer, audience, lifetime; the key set
 *    is cached and fetched again on an unknown `kid`): forged or expired tokens never cost a call.
 *    A token that passed is remembered (by its hash) until its `exp`, and not checked again: a
 *    signature does not change, and the check only ever filtered what auth would refuse anyway;
 * 2. the session at auth (`POST /auth/internal/introspect`, where auth verifies the token itself
 *    with its current keys): revoked sessions, disabled (frozen) accounts and the current roles.
 *    The answer is reused for ACCESS_SESSION_CACHE_MS, and on every reuse auth's Redis revocation
 *    marker is read, so a logout, PIN reset, freeze or role change (all of which end sessions and
 *    set the marker) is refused at the very next request.
 * Remembering the claims changes neither bound: no request is let through without auth's own
 * answer of at most ACCESS_SESSION_CACHE_MS ago and the marker read for this very request.
 * Auth unreachable: the request fails closed (502 UPSTREAM_UNAVAILABLE), never open.
 */
@Injectable()
export class AccessTokens {
  private readonly logger = new Logger(AccessTokens.name);
  private readonly verifyJwt: JwksVerifier;
  private readonly auth: InternalHttpClient;
  /** least recently used first (a hit moves its entry to the end) */
  private readonly cache = new Map<string, CachedToken>();

  constructor(
    @Inject(CONFIG) private readonly config: OrchestratorConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {
    this.verifyJwt = createJwksVerifier({
      jwksUrl: config.AUTH_URL.map((base) => new URL('/auth/.well-known/jwks.json', base).toString()),
      issuer: config.AUTH_JWT_ISSUER,
      audience: config.AUTH_JWT_AUDIENCE,
      typ: 'at+jwt',
      requiredClaims: ['jti', 'sid'],
      cacheMaxAgeMs: config.AUTH_JWKS_CACHE_MS,
    });
    this.auth = new InternalHttpClient({
      name: 'auth',
      baseUrl: config.AUTH_URL,
      serviceKey: config.INTERNAL_SERVICE_KEY,
      timeoutMs: Math.min(config.UPSTREAM_TIMEOUT_MS, 5_000),
    });
  }

  async verify(token: string): Promise<VerifiedSession> {
    const key = createHash('sha256').update(token).digest('base64url');
    const now = Date.now();
    let entry = this.cache.get(key);
    if (entry && entry.expiresAt > now) {
      this.cache.delete(key);
      this.cache.set(key, entry);
    } else {
      if (entry) this.cache.delete(key);
      entry = await this.verifyClaims(token, key);
    }

    if (entry.session && entry.sessionUntil > now) {
      const revoked = await this.revokedMarker(entry.session.sessionId);
      if (revoked === false) return entry.session;
      entry.session = undefined;
      if (revoked) {
        this.cache.delete(key);
        throw new AppException('TOKEN_REVOKED');
      }
      // marker unreadable: ask auth below
    }
    let session: VerifiedSession;
    try {
      session = await this.introspect(token);
    } catch (error) {
      // Auth refused the token (revoked, expired, frozen…): nothing about it is worth keeping.
      if (error instanceof AppException && error.status < 500) this.cache.delete(key);
      throw error;
    }
    if (this.config.ACCESS_SESSION_CACHE_MS > 0) {
      entry.session = session;
      entry.sessionUntil = Math.min(now + this.config.ACCESS_SESSION_CACHE_MS, entry.expiresAt);
    }
    return session;
  }

  /** The offline JWT check; a token that passes is remembered until its own `exp`. */
  private async verifyClaims(token: string, key: string): Promise<CachedToken> {
    const claims = await this.verifyJwt(token);
    if (typeof claims.sid !== 'string' || typeof claims.sub !== 'string') throw new AppException('TOKEN_INVALID');
    // `exp` is a required claim of the verifier; without a number nothing is remembered.
    const expiresAt = typeof claims.exp === 'number' ? claims.exp * 1000 : 0;
    const entry: CachedToken = { expiresAt, sessionUntil: 0 };
    if (expiresAt > Date.now()) {
      if (this.cache.size >= MAX_CACHED) this.evict(Date.now());
      this.cache.set(key, entry);
    }
    return entry;
  }

  private async introspect(token: string): Promise<VerifiedSession> {
    const answer = await this.auth.post<IntrospectionResponse>(AUTH_INTERNAL_ROUTES.introspect, { token });
    if (!answer.active) {
      // auth names why: TOKEN_REVOKED, TOKEN_EXPIRED, ACCOUNT_DISABLED (frozen), TOKEN_INVALID
      throw new AppException(isErrorCode(answer.reason) ? answer.reason : 'TOKEN_INVALID');
    }
    return { userId: answer.sub, sessionId: answer.sid, roles: answer.roles };
  }

  /** undefined when Redis cannot answer: the cached answer is then not trusted, auth is asked. */
  private async revokedMarker(sessionId: string): Promise<boolean | undefined> {
    try {
      return (await this.redis.exists(revokedSessionKey(sessionId))) === 1;
    } catch (error) {
      this.logger.warn({ msg: 'revocation marker unreadable: asking auth', err: error });
      return undefined;
    }
  }

  private evict(now: number): void {
    for (const [k, v] of this.cache) if (v.expiresAt <= now) this.cache.delete(k);
    // Still full (a burst of distinct tokens): drop the least recently used half rather than grow without bound.
    if (this.cache.size >= MAX_CACHED) [...this.cache.keys()].slice(0, MAX_CACHED / 2).forEach((k) => this.cache.delete(k));
  }
}
