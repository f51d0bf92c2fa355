/**
 * The part of the platform a fault case needs, all of it private to the case: PostgreSQL, Redis
 * (and optionally a second Redis for the webhook deduplication store), auth's stand-in for consent
 * proofs, and the chosen services as child processes wired to each other.
 *
 * Adding a service (partners, the orchestrator) to the fault cases: give it an entry in
 * SERVICE_ENV below (the URLs of the services it calls come from `urls`), list it in `services`,
 * and it is started, killed and restarted like the others.
 */
import { randomBytes } from 'node:crypto';
import type { ServiceName } from '@mm/contracts';
import { type ConsentSigner, startConsentSigner } from '../../../apps/ledger-wallets/test/consent-signer';
import { type PrivatePostgres, type PrivateRedis, freePort, startPrivatePostgres, startPrivateRedis } from './infra';
import { ServiceProcess } from './service-process';

export const REDIS_PREFIX = 'mmfault';

interface EnvContext {
  signer: ConsentSigner;
  urls: Record<ServiceName, string>;
  dedupRedisUrl?: string;
  webhookKey: string;
}

/** What each service needs beyond the common variables; timings scaled down so a case fits in seconds. */
const SERVICE_ENV: Partial<Record<ServiceName, (c: EnvContext) => Record<string, string>>> = {
  'ledger-wallets': (c) => ({
    LEDGER_CONSENT_JWKS_URL: c.signer.jwksUrl,
    LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
    LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
    LEDGER_OUTBOX_POLL_MS: '200',
  }),
  'webhook-dispatcher': (c) => ({
    // the same key across restarts, or the restarted process could not decrypt the endpoint secrets
    WEBHOOK_SECRET_ENCRYPTION_KEY: c.webhookKey,
    WEBHOOK_BACKOFF_BASE_MS: '200',
    WEBHOOK_TIMEOUT_MS: '2000',
    // a killed dispatcher's jobs return to the queue within seconds instead of a minute
    WEBHOOK_JOB_LOCK_MS: '2000',
    ...(c.dedupRedisUrl ? { WEBHOOK_DEDUP_REDIS_URL: c.dedupRedisUrl } : {}),
  }),
};

export interface FaultPlatform {
  pg: PrivatePostgres;
  redis: PrivateRedis;
  dedupRedis?: PrivateRedis;
  signer: ConsentSigner;
  serviceKey: string;
  services: Partial<Record<ServiceName, ServiceProcess>>;
  service(name: ServiceName): ServiceProcess;
  close(): Promise<void>;
}

export async function startFaultPlatform(options: {
  services: ServiceName[];
  /** a second Redis for the deduplication store, so its outage can differ from the queue's */
  separateDedupRedis?: boolean;
  env?: Partial<Record<ServiceName, Record<string, string>>>;
}): Promise<FaultPlatform> {
  const started = await Promise.allSettled([
    startPrivatePostgres(),
    startPrivateRedis(),
    options.separateDedupRedis ? startPrivateRedis() : undefined,
    startConsentSigner(),
  ]);
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) {
    // Whatever did start must not outlive the failed case.
    await Promise.all(
      started.map((r) => (r.status === 'fulfilled' && r.value ? ('destroy' in r.value ? r.value.destroy() : r.value.close()) : undefined)),
    );
    throw failed.reason;
  }
  const [pg, redis, dedupRedis, signer] = started.map((r) => (r as PromiseFulfilledResult<unknown>).value) as [
    PrivatePostgres,
    PrivateRedis,
    PrivateRedis | undefined,
    ConsentSigner,
  ];
  const serviceKey = randomBytes(32).toString('hex');
  const ports = {} as Record<ServiceName, number>;
  for (const name of options.services) ports[name] = await freePort();
  const urls = Object.fromEntries(Object.entries(ports).map(([n, p]) => [n, `http://127.0.0.1:${p}`])) as Record<ServiceName, string>;
  const context: EnvContext = { signer, urls, dedupRedisUrl: dedupRedis?.url, webhookKey: randomBytes(32).toString('base64') };

  const services: Partial<Record<ServiceName, ServiceProcess>> = {};
  for (const name of options.services) {
    services[name] = new ServiceProcess(name, ports[name], {
      DATABASE_URL: pg.urlFor(name),
      DB_POOL_SIZE: '6',
      REDIS_URL: redis.url,
      REDIS_PREFIX,
      INTERNAL_SERVICE_KEY: serviceKey,
      ...SERVICE_ENV[name]?.(context),
      ...options.env?.[name],
    });
  }
  const platform: FaultPlatform = {
    pg,
    redis,
    dedupRedis,
    signer,
    serviceKey,
    services,
    service(name) {
      const s = services[name];
      if (!s) throw new Error(`${name} is not part of this fault platform`);
      return s;
    },
    async close() {
      await Promise.all(Object.values(services).map((s) => s.stop()));
      await Promise.all([pg.destroy(), redis.destroy(), dedupRedis?.destroy(), signer.close()]);
    },
  };
  try {
    for (const name of options.services) await services[name]!.start();
  } catch (error) {
    await platform.close();
    throw error;
  }
  return platform;
}
