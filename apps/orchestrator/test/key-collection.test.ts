import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { IssuedApiKey } from '@mm/contracts';
import type { PartnersClient } from '../src/backoffice/partners/partners.client';
import { KeyCollectionStore } from '../src/backoffice/partners/key-collection.store';
import { PartnerKeyIssueHandler } from '../src/backoffice/partners/partner-key.handlers';
import type { OrchestratorConfig } from '../src/orchestrator.config';
import { createTestRedis } from '../../../test/support/test-env';

const issued = (): IssuedApiKey =>
  ({
    id: randomUUID(),
    mode: 'live',
    hint: 'svc_sk_live_…AB12',
    key: `svc_sk_live_${randomBytes(16).toString('hex')}`,
    status: 'active',
    createdAt: new Date().toISOString(),
    expiresAt: null,
    revokedAt: null,
  }) as IssuedApiKey;

const configWith = (key: string) => ({ INTERNAL_SERVICE_KEY: key }) as OrchestratorConfig;

/** The encrypted keeping of issued partner keys and new webhook secrets, on a real Redis. */
describe('key collection store: kept once, collected once, never a 500', () => {
  const redisInfo = createTestRedis();
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(redisInfo.url, { keyPrefix: `${redisInfo.prefix}:` });
  });
  afterAll(async () => {
    redis.disconnect();
    await redisInfo.flush();
  });

  it('a box sealed under another service key (a key rotation since) is 404 PARTNER_KEY_NOT_COLLECTABLE, not a 500', async () => {
    const before = new KeyCollectionStore(redis, configWith(randomBytes(32).toString('hex')));
    const after = new KeyCollectionStore(redis, configWith(randomBytes(32).toString('hex')));
    const requestId = randomUUID();
    await before.keep(requestId, issued());
    await expect(after.collect(requestId)).rejects.toMatchObject({ code: 'PARTNER_KEY_NOT_COLLECTABLE' });

    const secretRequest = randomUUID();
    await before.keepSecret(secretRequest, { mode: 'live', secret: 'whsec_x', previousSecretExpiresAt: null });
    await expect(after.collectSecret(secretRequest)).rejects.toMatchObject({ code: 'WEBHOOK_SECRET_NOT_COLLECTABLE' });

    // under the same key: once, then nothing
    const same = randomUUID();
    const key = issued();
    await before.keep(same, key);
    expect(await before.collect(same)).toEqual(key);
    expect(await before.collect(same)).toBeNull();
  });

  it('an issued key Redis refuses to keep is revoked before the execution fails (the engine runs it again)', async () => {
    const key = issued();
    const revoked: string[] = [];
    const partners = {
      issueApiKey: async () => key,
      revokeApiKey: async (_integrationId: string, keyId: string) => {
        revoked.push(keyId);
        return { ...key, status: 'revoked' };
      },
    } as unknown as PartnersClient;
    // The real Redis, refusing the write that keeps the key (as under maxmemory: OOM command not allowed).
    const refusing = new Proxy(redis, {
      get: (target, prop) => {
        if (prop === 'multi')
          return () => ({
            set: function set() {
              return this;
            },
            exec: async () => [[new Error('OOM command not allowed'), null]],
          });
        const value = Reflect.get(target, prop) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const handler = new PartnerKeyIssueHandler(partners, new KeyCollectionStore(refusing, configWith('k'.repeat(64))));
    const checker = { userId: randomUUID() } as never;
    await expect(handler.execute({ integrationId: randomUUID(), mode: 'live' }, null, checker, randomUUID())).rejects.toThrow(
      'OOM command not allowed',
    );
    expect(revoked).toEqual([key.id]);
  });
});
