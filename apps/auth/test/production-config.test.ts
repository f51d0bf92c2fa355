import { generateKeyPairSync } from 'node:crypto';
import { type IncomingMessage, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authApp } from '../src/auth.app';
import { boot } from '../../../test/support/boot';
import { callerKey, createTestDatabase, createTestRedis, serviceEnv, type TestDatabase } from '../../../test/support/test-env';

describe('auth: production configuration', () => {
  let db: TestDatabase;
  const redis = createTestRedis();
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await redis.flush();
    await db.drop();
  });

  const secrets = {
    PIN_PEPPER: 'x'.repeat(40),
    OTP_HMAC_KEY: 'y'.repeat(40),
    TOTP_ENCRYPTION_KEY: 't'.repeat(40),
    JWT_PRIVATE_KEY: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    SMS_DRIVER: 'http',
    SMS_PROVIDER_URL: 'http://127.0.0.1:9/sms',
  };

  it.each(['PIN_PEPPER', 'OTP_HMAC_KEY', 'JWT_PRIVATE_KEY', 'TOTP_ENCRYPTION_KEY', 'SMS_PROVIDER_URL'])(
    'refuses to start without %s',
    async (missing) => {
      const env = serviceEnv('auth', db, redis, { ...secrets, NODE_ENV: 'production', [missing]: undefined });
      await expect(boot(authApp, env)).rejects.toThrow(new RegExp(`production requires.*${missing}`));
    },
  );

  it('refuses the dev SMS driver', async () => {
    await expect(boot(authApp, serviceEnv('auth', db, redis, { ...secrets, NODE_ENV: 'production', SMS_DRIVER: 'dev' }))).rejects.toThrow(
      /SMS_DRIVER=http/,
    );
  });

  it('starts with every secret, uses the configured key, and has no dev SMS route', async () => {
    const running = await boot(authApp, serviceEnv('auth', db, redis, { ...secrets, NODE_ENV: 'production', JWT_KEY_ID: 'prod-1' }));
    try {
      const sms = await running.app.inject({ method: 'GET', url: '/auth/dev/sms?phone=%2B237690000001' });
      expect(sms.statusCode).toBe(404);
      const jwks = (await running.app.inject({ method: 'GET', url: '/auth/.well-known/jwks.json' })).json();
      expect(jwks.keys).toEqual([expect.objectContaining({ kid: 'prod-1', kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' })]);
      expect(jwks.keys[0].d).toBeUndefined();
    } finally {
      await running.close();
    }
  });

  it('sends SMS through the HTTP provider adapter; a failing provider does not change the answer', async () => {
    const received: Array<{ auth?: string; body: { to: string; text: string } }> = [];
    let fail = false;
    const receivedCount = async (n: number) => {
      for (const deadline = Date.now() + 10_000; received.length < n && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 20));
    };
    const server = createServer((req: IncomingMessage, res) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => {
        received.push({ auth: req.headers.authorization, body: JSON.parse(data) });
        res.statusCode = fail ? 503 : 202;
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sms`;
    const env = serviceEnv('auth', db, redis, {
      ...secrets,
      NODE_ENV: 'production',
      SMS_PROVIDER_URL: url,
      SMS_PROVIDER_TOKEN: 'provider-token',
      OTP_RESEND_COOLDOWN_SEC: '0',
    });
    const running = await boot(authApp, env);
    try {
      const phone = '+237690000951';
      const key = { 'x-service-key': callerKey('orchestrator') };
      const idp = await running.app.inject({
        method: 'POST',
        url: '/auth/internal/create-idp-user',
        headers: key,
        payload: { phone, pin: '2580' },
      });
      await running.app.inject({
        method: 'POST',
        url: '/auth/internal/create-local-user',
        headers: key,
        payload: { idpUserId: idp.json().idpUserId, roles: ['CUSTOMER'] },
      });
      const sent = await running.app.inject({ method: 'POST', url: '/auth/reset-pin/request', payload: { phone } });
      expect(sent.statusCode).toBe(202);
      // The answer does not wait for the provider (OtpService.deliver): on a loaded machine its
      // request may land after the 202.
      await receivedCount(1);
      expect(received).toEqual([{ auth: 'Bearer provider-token', body: { to: phone, text: expect.stringMatching(/\b\d{6}\b/) } }]);
      fail = true;
      const failed = await running.app.inject({ method: 'POST', url: '/auth/reset-pin/request', payload: { phone } });
      // The same 202 as for a phone without an account (otp-same-answer.test.ts), yet the provider was asked.
      expect([failed.statusCode, failed.json()]).toEqual([sent.statusCode, sent.json()]);
      await receivedCount(2);
      expect(received).toHaveLength(2);
    } finally {
      await running.close();
      server.close();
    }
  });
});
