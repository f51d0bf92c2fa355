import { randomUUID } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, type JWK, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { AUTH_JWKS_PATH, AUTH_TOKEN_ISSUER } from '@mm/contracts';

/**
 * Funding test accounts the lawful ways (docs/ledger-corrections.md "Test funding"): money enters an
 * account only through a correction a maker submits and a different checker approves, each proven by an
 * access token signed by "auth" (here: a key generated per test file, served as a JWKS). The ledger's
 * `PUT /v1/accounts/:id/balance/add` is the test-funding flow (NODE_ENV=test only; its test-funding/).
 */

/** How a test calls the ledger: `(method, path, body?, headers?)` with the service key already set (ledger harness `h.call`). */
export type LedgerCall = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers field by field
) => Promise<{ status: number; body: any }>;

export interface TestOperator {
  id: string;
  roles: string[];
}

/** Two distinct operators allowed to make and to check a correction (default role configuration). */
export const TEST_MAKER: TestOperator = { id: 'operator-maker', roles: ['ADMIN'] };
export const TEST_CHECKER: TestOperator = { id: 'operator-checker', roles: ['COMPLIANCE'] };

export interface TokenOptions {
  /** seconds from now; negative for an expired token (default 300) */
  expiresInSec?: number;
  audience?: string;
  issuer?: string;
  typ?: string;
  /** sign with a key the served JWKS does not know */
  key?: CryptoKey;
}

export interface OperatorSigner {
  /** give it to the ledger as LEDGER_CONSENT_JWKS_URL (auth's key set) */
  jwksUrl: string;
  /** also serve the keys published at another JWKS URL (the ledger harness's consent signer) */
  alsoServe(jwksUrl: string): void;
  /** an access token as auth issues them (`at+jwt`, iss mm-auth, aud mm-platform, `roles`) */
  token(operator: TestOperator, options?: TokenOptions): Promise<string>;
  close(): Promise<void>;
}

export async function startOperatorSigner(): Promise<OperatorSigner> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const kid = `operators-${randomUUID().slice(0, 8)}`;
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' };
  const upstreams: string[] = [];
  const server: Server = createServer((req, res) => {
    if (req.url !== AUTH_JWKS_PATH) {
      res.writeHead(404).end();
      return;
    }
    void Promise.all(upstreams.map(async (url) => ((await (await fetch(url)).json()) as { keys: JWK[] }).keys)).then(
      (others) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk, ...others.flat()] })),
      () => res.writeHead(502).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    jwksUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}${AUTH_JWKS_PATH}`,
    alsoServe: (url) => void upstreams.push(url),
    async token(operator, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ sid: randomUUID(), roles: operator.roles })
        .setProtectedHeader({ alg: 'EdDSA', kid, typ: options.typ ?? 'at+jwt' })
        .setIssuer(options.issuer ?? AUTH_TOKEN_ISSUER)
        .setAudience(options.audience ?? 'mm-platform')
        .setSubject(operator.id)
        .setJti(randomUUID())
        .setIssuedAt(now - 1)
        .setExpirationTime(now + (options.expiresInSec ?? 300))
        .sign(options.key ?? privateKey);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** Funds (CREDIT) or drains (DEBIT) an account through maker-checker; returns the executed correction. */
export async function correctBalance(
  call: LedgerCall,
  signer: OperatorSigner,
  accountId: string,
  amount: number,
  direction: 'CREDIT' | 'DEBIT' = 'CREDIT',
  operators: { maker: TestOperator; checker: TestOperator } = { maker: TEST_MAKER, checker: TEST_CHECKER },
) {
  const submitted = await call(
    'POST',
    '/v1/internal/corrections',
    { idempotencyKey: randomUUID(), accountId, direction, amount, reason: 'test funding through maker-checker' },
    bearer(await signer.token(operators.maker)),
  );
  if (submitted.status !== 201) throw new Error(`correction submit: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  const approved = await call(
    'POST',
    `/v1/internal/corrections/${submitted.body.id}/approve`,
    { reason: 'test funding' },
    bearer(await signer.token(operators.checker)),
  );
  if (approved.status !== 200) throw new Error(`correction approve: ${approved.status} ${JSON.stringify(approved.body)}`);
  return approved.body;
}

/** The documented test-funding flow (`add`; answers 403 CORRECTION_APPROVAL_REQUIRED outside NODE_ENV=test). */
export async function fundForTest(call: LedgerCall, accountId: string, amount: number): Promise<void> {
  const res = await call('PUT', `/v1/accounts/${accountId}/balance/add`, { amount, reason: 'test funding', createdBy: 'test' });
  if (res.status !== 200) throw new Error(`test funding: ${res.status} ${JSON.stringify(res.body)}`);
}
