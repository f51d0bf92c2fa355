import { randomUUID } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, type JWK, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { AUTH_JWKS_PATH, AUTH_TOKEN_ISSUER, CONSENT_PROOF_AUDIENCE, CONSENT_PROOF_TYP, type ConsentStep } from '@mm/contracts';

/*
 * Auth's part in the consent proof (contract: `@mm/contracts` consent.ts), for the ledger's tests and
 * benchmark: an Ed25519 key generated in the process (never committed) whose public half is served
 * as a JWKS on a loopback port, and proofs signed with it. The ledger is pointed at that JWKS.
 */

export interface ProofClaims {
  sub: string;
  intentId: string;
  step: ConsentStep;
  jti?: string;
}

export interface ProofOptions {
  /** seconds from now; negative for an already expired proof (default 120) */
  expiresInSec?: number;
  typ?: string;
  audience?: string;
  issuer?: string;
  /** sign with another key (still named with the served key's kid) */
  key?: CryptoKey;
}

export interface ConsentSigner {
  jwksUrl: string;
  sign(claims: ProofClaims, options?: ProofOptions): Promise<string>;
  /** a key the served JWKS does not know */
  strangerKey(): Promise<CryptoKey>;
  close(): Promise<void>;
}

export async function startConsentSigner(): Promise<ConsentSigner> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const kid = `test-${randomUUID().slice(0, 8)}`;
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' };
  const server: Server = createServer((req, res) => {
    if (req.url !== AUTH_JWKS_PATH) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    jwksUrl: `${base}${AUTH_JWKS_PATH}`,
    async sign(claims, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ intent_id: claims.intentId, step: claims.step })
        .setProtectedHeader({ alg: 'EdDSA', kid, typ: options.typ ?? CONSENT_PROOF_TYP })
        .setIssuer(options.issuer ?? AUTH_TOKEN_ISSUER)
        .setAudience(options.audience ?? CONSENT_PROOF_AUDIENCE)
        .setSubject(claims.sub)
        .setJti(claims.jti ?? randomUUID())
        .setIssuedAt(now - 1)
        .setExpirationTime(now + (options.expiresInSec ?? 120))
        .sign(options.key ?? privateKey);
    },
    async strangerKey() {
      return (await generateKeyPair('EdDSA', { crv: 'Ed25519' })).privateKey;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
