import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { type CryptoKey, type JWK, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { AppException } from '@mm/errors';
import { closeInternalHttpConnections } from '@mm/platform';
import type { OrchestratorConfig } from '../orchestrator.config';
import { AccessTokens } from './access-tokens.service';
import { fakeDateOnly } from '../../../../test/support/fake-date';

/**
 * The token cache of the access guard, against a local HTTP server that plays auth's two
 * endpoints (its key set and its introspection, which counts the calls and can be told to refuse)
 * and the real Redis (auth's revocation marker). The clock is moved with Jest's fake Date only.
 */
describe('AccessTokens (claims remembered until exp, session answer and marker as before)', () => {
  const prefix = `mm-test-access-${randomUUID()}`;
  let server: Server;
  let redis: Redis;
  let signingKey: CryptoKey;
  let jwk: JWK;
  let introspections = 0;
  let refuse: string | undefined;
  const SESSION_CACHE_MS = 2_000;
  const start = Date.parse('2026-11-23T12:00:00.000Z');

  beforeAll(async () => {
    const pair = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    signingKey = pair.privateKey;
    jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'EdDSA', use: 'sig' };
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        if (req.url === '/auth/.well-known/jwks.json') return res.end(JSON.stringify({ keys: [jwk] }));
        if (req.url === '/auth/internal/introspect') {
          introspections++;
          const { token } = JSON.parse(body) as { token: string };
          const [, payload] = token.split('.');
          const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
          return res.end(
            JSON.stringify(
              refuse
                ? { active: false, reason: refuse }
                : { active: true, sub: claims.sub, sid: claims.sid, jti: claims.jti, roles: ['CUSTOMER'], exp: claims.exp },
            ),
          );
        }
        res.statusCode = 404;
        res.end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { keyPrefix: `${prefix}:`, maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys.map((k) => k.slice(prefix.length + 1)));
    redis.disconnect();
    await closeInternalHttpConnections();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  beforeEach(() => {
    // Only Date is faked: sockets, timers and Redis keep running for real.
    fakeDateOnly(start);
    introspections = 0;
    refuse = undefined;
  });
  afterEach(() => jest.useRealTimers());

  const tokens = () =>
    new AccessTokens(
      {
        AUTH_URL: [`http://127.0.0.1:${(server.address() as AddressInfo).port}`],
        AUTH_JWT_ISSUER: 'mm-auth',
        AUTH_JWT_AUDIENCE: 'mm-platform',
        AUTH_JWKS_CACHE_MS: 600_000,
        INTERNAL_SERVICE_KEY: 'k'.repeat(43),
        UPSTREAM_TIMEOUT_MS: 5_000,
        ACCESS_SESSION_CACHE_MS: SESSION_CACHE_MS,
      } as OrchestratorConfig,
      redis,
    );
  const sign = (lifetimeSec: number, key: CryptoKey = signingKey, sid = randomUUID()) =>
    new SignJWT({ sid, roles: ['CUSTOMER'] })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: 'k1' })
      .setIssuer('mm-auth')
      .setAudience('mm-platform')
      .setSubject(randomUUID())
      .setJti(randomUUID())
      .setIssuedAt(Math.floor(start / 1000))
      .setExpirationTime(Math.floor(start / 1000) + lifetimeSec)
      .sign(key);
  const code = (call: Promise<unknown>) =>
    call.then(
      () => 'accepted',
      (e: unknown) => (e instanceof AppException ? e.code : String(e)),
    );

  it('reuses the session answer for the cache time, reading the revocation marker each time, then asks auth again', async () => {
    const access = tokens();
    const token = await sign(900);
    expect(await access.verify(token)).toMatchObject({ roles: ['CUSTOMER'] });
    expect(await access.verify(token)).toMatchObject({ roles: ['CUSTOMER'] });
    expect(introspections).toBe(1);

    jest.setSystemTime(start + SESSION_CACHE_MS + 1);
    expect(await code(access.verify(token))).toBe('accepted');
    expect(introspections).toBe(2);

    // Auth's answer, not the remembered claims, decides once the session answer has lapsed.
    jest.setSystemTime(start + 2 * SESSION_CACHE_MS + 2);
    refuse = 'ACCOUNT_DISABLED';
    expect(await code(access.verify(token))).toBe('ACCOUNT_DISABLED');
    expect(await code(access.verify(token))).toBe('ACCOUNT_DISABLED');
    expect(introspections).toBe(4);
  });

  it('refuses a remembered token at the next request once its session is marked revoked', async () => {
    const access = tokens();
    const sid = randomUUID();
    const token = await sign(900, signingKey, sid);
    expect(await code(access.verify(token))).toBe('accepted');
    await redis.set(`auth:revoked-session:${sid}`, '1', 'EX', 60);
    expect(await code(access.verify(token))).toBe('TOKEN_REVOKED');
    expect(introspections).toBe(1);
  });

  it('never reuses a token past its exp: the JWT check runs again and refuses it', async () => {
    const access = tokens();
    const token = await sign(60);
    expect(await code(access.verify(token))).toBe('accepted');
    // Past exp and past the verifier's clock tolerance; auth (here) would still say active.
    jest.setSystemTime(start + 70_000);
    expect(await code(access.verify(token))).toBe('TOKEN_EXPIRED');
    expect(introspections).toBe(1);
  });

  it('remembers nothing about a token that fails the JWT check, and never asks auth about it', async () => {
    const access = tokens();
    const other = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const forged = await sign(900, other.privateKey);
    expect(await code(access.verify(forged))).toBe('TOKEN_INVALID');
    expect(await code(access.verify(forged))).toBe('TOKEN_INVALID');
    expect(introspections).toBe(0);
  });
});
