import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { createJwksVerifier } from './jwks-verifier';

/** A key set served by a real local server, as each of auth's replicas serves it. */
async function keySetServer(jwks: unknown): Promise<{ server: Server; url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`, hits: () => hits };
}

describe('JWKS verifier over several replicas of auth', () => {
  it('fetches the key set from the next replica when one cannot be reached', async () => {
    const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'EdDSA', use: 'sig' };
    const live = await keySetServer({ keys: [jwk] });
    // A replica that is down: a port nothing listens on any more.
    const gone = await keySetServer({ keys: [] });
    const goneUrl = gone.url;
    await new Promise((r) => gone.server.close(r));
    try {
      const verify = createJwksVerifier({ jwksUrl: [goneUrl, live.url], issuer: 'mm-auth', audience: 'mm-platform', typ: 'at+jwt' });
      const token = await new SignJWT({ sub: 'user-1' })
        .setProtectedHeader({ alg: 'EdDSA', kid: 'k1', typ: 'at+jwt' })
        .setIssuer('mm-auth')
        .setAudience('mm-platform')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
      await expect(verify(token)).resolves.toMatchObject({ sub: 'user-1' });
      expect(live.hits()).toBe(1);
    } finally {
      await new Promise((r) => live.server.close(r));
    }
  });
});
