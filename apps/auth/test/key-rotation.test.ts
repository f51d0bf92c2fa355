import { type KeyObject, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { SignJWT, decodeProtectedHeader } from 'jose';
import { createJwksVerifier } from '@mm/platform';
import { authApp } from '../src/auth.app';
import { defaultKid } from '../src/crypto/auth-secrets';
import { type RunningApp, boot } from '../../../test/support/boot';
import { AuthHarness } from './support/auth-harness';

const PHONE = '+237690000601';
const PIN = '2580';

function newKey(): { privatePem: string; publicPem: string; publicKey: KeyObject; privateKey: KeyObject; kid: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKey,
    publicKey,
    // One line with \n escapes, as operators put it in an environment file.
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString().replace(/\n/g, '\\n'),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    kid: defaultKid(publicKey),
  };
}

type Jwks = { keys: Array<Record<string, unknown>> };

/**
 * A rotation from key A to key B as operators run it (docs/auth-limits.md): instances on the old
 * configuration (A signs, B published as next) and on the new one (B signs, A published as
 * previous) run side by side on one database during the rollout, and each accepts the other's tokens.
 */
describe('auth: signing key rotation through the JWKS', () => {
  const A = newKey();
  const B = newKey();
  const h = new AuthHarness();
  let oldConfig: RunningApp;
  let newConfig: RunningApp;

  beforeAll(async () => {
    await h.start({ JWT_PRIVATE_KEY: A.privatePem, JWT_NEXT_PUBLIC_KEY: B.publicPem });
    await h.createUser(PHONE, PIN);
    oldConfig = await boot(authApp, h.env, { listen: true });
    newConfig = await boot(
      authApp,
      { ...h.env, JWT_PRIVATE_KEY: B.privatePem, JWT_NEXT_PUBLIC_KEY: undefined, JWT_PREVIOUS_PUBLIC_KEY: A.publicPem },
      { listen: true },
    );
  });
  afterAll(async () => {
    await newConfig?.close();
    await oldConfig?.close();
    await h.stop();
  });

  const jwksOf = async (app: RunningApp): Promise<Jwks> => (await fetch(`${app.url}/auth/.well-known/jwks.json`)).json() as Promise<Jwks>;
  const loginAt = async (app: RunningApp): Promise<{ token: string; refreshToken: string }> => {
    const res = await fetch(`${app.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ phone: PHONE, pin: PIN }),
    });
    expect(res.status).toBe(200);
    return res.json() as Promise<{ token: string; refreshToken: string }>;
  };
  const meAt = async (app: RunningApp, token: string): Promise<{ status: number; code?: string }> => {
    const res = await fetch(`${app.url}/auth/me`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, code: ((await res.json()) as { code?: string }).code };
  };

  it('publishes the signing key and the next one by kid, public parts only', async () => {
    const jwks = await jwksOf(oldConfig);
    expect(jwks.keys.map((k) => k.kid)).toEqual([A.kid, B.kid]);
    for (const key of jwks.keys) {
      expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', x: expect.any(String) });
      expect(key).not.toHaveProperty('d');
    }
    // The next key is only published: tokens are still signed with the current one.
    expect(decodeProtectedHeader((await loginAt(oldConfig)).token).kid).toBe(A.kid);
  });

  it('after the switch, publishes the new signing key and the previous one, and signs with the new one', async () => {
    const jwks = await jwksOf(newConfig);
    expect(jwks.keys.map((k) => k.kid)).toEqual([B.kid, A.kid]);
    const { token } = await loginAt(newConfig);
    expect(decodeProtectedHeader(token).kid).toBe(B.kid);
    const proof = await fetch(`${newConfig.url}/auth/check-pin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ pin: PIN, intentId: '3f1c2a9e-5b7d-4c1e-9a2f-6d8e0b4c7a15' }),
    });
    expect(decodeProtectedHeader(((await proof.json()) as { consentProof: string }).consentProof).kid).toBe(B.kid);
  });

  it('logs nobody out: old and new instances accept each other’s tokens, and refresh tokens carry over', async () => {
    const before = await loginAt(oldConfig);
    const after = await loginAt(newConfig);
    expect(await meAt(newConfig, before.token)).toMatchObject({ status: 200 });
    expect(await meAt(oldConfig, after.token)).toMatchObject({ status: 200 });
    // A session opened before the switch refreshes on a new instance into a token of the new key.
    const res = await fetch(`${newConfig.url}/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: before.refreshToken }),
    });
    expect(res.status).toBe(200);
    expect(decodeProtectedHeader(((await res.json()) as { token: string }).token).kid).toBe(B.kid);
  });

  it('lets another service that fetched the key set before the switch verify tokens of the new key without fetching again', async () => {
    const verifier = createJwksVerifier({
      jwksUrl: `${oldConfig.url}/auth/.well-known/jwks.json`,
      issuer: 'mm-auth',
      audience: 'mm-platform',
      typ: 'at+jwt',
    });
    const before = await loginAt(oldConfig);
    await expect(verifier(before.token)).resolves.toMatchObject({ sid: expect.any(String) });
    const after = await loginAt(newConfig);
    // The old instance goes away: a fetch would now fail, so success proves the cached set had key B.
    await oldConfig.close();
    await expect(verifier(after.token)).resolves.toMatchObject({ sid: expect.any(String) });
    oldConfig = await boot(authApp, h.env, { listen: true });
  });

  it('accepts no token under a kid it does not publish, nor one of its kids with another key', async () => {
    const C = newKey();
    const claims = JSON.parse(Buffer.from((await loginAt(newConfig)).token.split('.')[1], 'base64url').toString()) as Record<
      string,
      unknown
    >;
    for (const kid of [C.kid, A.kid, B.kid, undefined]) {
      const forged = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', ...(kid ? { kid } : {}) })
        .sign(C.privateKey);
      for (const app of [oldConfig, newConfig]) expect(await meAt(app, forged)).toEqual({ status: 401, code: 'TOKEN_INVALID' });
    }
  });

  it('refuses to start with a next or previous key that is the signing key, or not Ed25519, before connecting to anything', async () => {
    const signingAgain = createPublicKey(A.privateKey).export({ type: 'spki', format: 'pem' }).toString();
    await expect(boot(authApp, { ...h.env, JWT_NEXT_PUBLIC_KEY: signingAgain })).rejects.toThrow(
      /JWT_NEXT_PUBLIC_KEY has the kid .* of the signing key/,
    );
    await expect(boot(authApp, { ...h.env, JWT_NEXT_PUBLIC_KEY: B.publicPem, JWT_PREVIOUS_PUBLIC_KEY: B.publicPem })).rejects.toThrow(
      /JWT_PREVIOUS_PUBLIC_KEY has the kid .* of JWT_NEXT_PUBLIC_KEY/,
    );
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    await expect(boot(authApp, { ...h.env, JWT_PREVIOUS_PUBLIC_KEY: rsa })).rejects.toThrow(
      /JWT_PREVIOUS_PUBLIC_KEY must be an Ed25519 key/,
    );
    await expect(boot(authApp, { ...h.env, JWT_NEXT_PUBLIC_KEY: 'not a key' })).rejects.toThrow(/JWT_NEXT_PUBLIC_KEY is not a PEM key/);
  });
});
