import { type JWTPayload, type JWTVerifyOptions, createRemoteJWKSet, customFetch, errors as joseErrors, jwtVerify } from 'jose';
import { AppException } from '@mm/errors';

/** auth's key set: one URL, or the same document at each of auth's replicas */
export type JwksLocation = string | readonly string[];

export interface JwksVerifierOptions {
  /** auth's key set, e.g. `${AUTH_URL}/auth/.well-known/jwks.json` (one per replica when several) */
  jwksUrl: JwksLocation;
  issuer: string;
  audience: string;
  /** the JWT `typ` header expected (`at+jwt` for access tokens); each kind of token has its own */
  typ: string;
  /** claims every accepted token must carry */
  requiredClaims?: string[];
  /** how long a fetched key set is trusted before it is fetched again (default 10 min) */
  cacheMaxAgeMs?: number;
}

export type JwksVerifier = (token: string) => Promise<JWTPayload>;

/**
 * Offline verification of tokens signed by auth, for every service that must trust them
 * (orchestrator guard, ledger consent proofs, operator identities). jose's remote key set caches
 * the document and fetches it again when a token names an unknown `kid`, so a key rotation at auth
 * needs no restart elsewhere. EdDSA only: `alg: none` and HMAC confusion fail here.
 */
export function createJwksVerifier(options: JwksVerifierOptions): JwksVerifier {
  const urls = typeof options.jwksUrl === 'string' ? [options.jwksUrl] : options.jwksUrl;
  const keys = createRemoteJWKSet(new URL(urls[0]), {
    cacheMaxAge: options.cacheMaxAgeMs ?? 600_000,
    cooldownDuration: 5_000,
    timeoutDuration: 2_000,
    ...(urls.length > 1 ? { [customFetch]: failover(urls) } : {}),
  });
  const verifyOptions: JWTVerifyOptions = {
    algorithms: ['EdDSA'],
    typ: options.typ,
    issuer: options.issuer,
    audience: options.audience,
    requiredClaims: ['sub', 'exp', 'iat', ...(options.requiredClaims ?? [])],
    clockTolerance: 5,
  };
  return async (token: string) => {
    try {
      const { payload } = await jwtVerify(token, keys, verifyOptions);
      return payload;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new AppException('TOKEN_EXPIRED');
      if (
        error instanceof joseErrors.JWKSTimeout ||
        (error instanceof Error && error.name === 'TypeError' && /fetch/i.test(error.message))
      ) {
        throw new AppException('UPSTREAM_UNAVAILABLE', 'The key set of the authentication service could not be fetched');
      }
      throw new AppException('TOKEN_INVALID');
    }
  };
}

/**
 * Every replica of auth serves the same key set: a fetch that cannot reach one replica asks the
 * next, starting from the last one that answered. Only a transport failure moves on; an answer,
 * whatever its status, is jose's to judge.
 */
function failover(urls: readonly string[]): typeof fetch {
  let current = 0;
  return (async (_url: string, init: RequestInit) => {
    let lastError: unknown;
    for (let tried = 0; tried < urls.length; tried += 1) {
      const index = (current + tried) % urls.length;
      try {
        const res = await fetch(urls[index], init);
        current = index;
        return res;
      } catch (error) {
        if (init.signal?.aborted) throw error;
        lastError = error;
      }
    }
    throw lastError;
  }) as typeof fetch;
}
