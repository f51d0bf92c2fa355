/**
 * The part of the platform a fault case needs, all of it private to the case: PostgreSQL, Redis
 * (and optionally a second Redis for the webhook deduplication store), auth's stand-in for consent
 * proofs, and the chosen services as child processes wired to each other.
 *
 * Adding a service to the fault cases: give it an entry in SERVICE_ENV below (the URLs of the
 * services it calls come from `urls`; a service that is not part of the case answers nowhere), list
 * it in `services`, and it is started, killed and restarted like the others. Every variable a
 * service gets is built by `environmentOf` (one place: the credentials each service holds are set there).
 */
import { randomBytes } from 'node:crypto';
import type { ServiceName } from '@mm/contracts';
import { type CallerName, type ServiceKeys, generateServiceKeys, serviceCredentialEnv } from '@mm/platform';
import { type ConsentSigner, startConsentSigner } from '../../../apps/ledger-wallets/test/consent-signer';
import { freePorts } from '../../support/free-port';
import { type PrivatePostgres, type PrivateRedis, startPrivatePostgres, startPrivateRedis } from './infra';
import { ServiceProcess } from './service-process';

export const REDIS_PREFIX = 'mmfault';

/** Where a service of the case that is not started would be: nothing listens on port 9 (discard). */
const NOWHERE = 'http://127.0.0.1:9';

/** The order services start in: each after those it calls at boot or first (auth's key set, the ledger). */
export const START_ORDER: ServiceName[] = ['auth', 'ledger-wallets', 'webhook-dispatcher', 'partners', 'orchestrator'];

export interface EnvContext {
  signer: ConsentSigner;
  /** the started services' URLs (the orchestrator's public listener) */
  urls: Partial<Record<ServiceName, string>>;
  /** the orchestrator's internal listener (`/api/internal/*`, where partners finds merchants); with replicas, their comma-separated list */
  orchestratorInternalUrl: string;
  dedupRedisUrl?: string;
  webhookKey: string;
  /** partners' merchant-pseudonym key, the same across restarts like any configured secret */
  pseudonymSecret: string;
}

const url = (c: EnvContext, service: ServiceName) => c.urls[service] ?? NOWHERE;

/** What each service needs beyond the common variables; timings scaled down so a case fits in seconds. */
const SERVICE_ENV: Record<ServiceName, (c: EnvContext) => Record<string, string>> = {
  auth: () => ({
    OTP_RESEND_COOLDOWN_SEC: '0',
    // the gateway forwards the client's address; auth's per-IP rules apply to it
    TRUST_FORWARDED_FOR: 'true',
    // Every client of a case is 127.0.0.1: its logins are the load, not an attack from one address.
    // The per-phone limit stays on (each phone signs in once or twice).
    LOGIN_LIMIT_PER_IP: '0',
  }),
  'ledger-wallets': (c) => ({
    // With auth in the case the ledger checks auth's real consent proofs; otherwise the stand-in's.
    ...(c.urls.auth ? { AUTH_URL: c.urls.auth } : { LEDGER_CONSENT_JWKS_URL: c.signer.jwksUrl }),
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
  partners: (c) => ({
    PARTNERS_PSEUDONYM_SECRET: c.pseudonymSecret,
    ORCHESTRATOR_URL: c.urls.orchestrator ? c.orchestratorInternalUrl : NOWHERE,
    WEBHOOK_DISPATCHER_URL: url(c, 'webhook-dispatcher'),
    PARTNERS_OUTBOX_POLL_MS: '200',
    PARTNERS_SWEEP_INTERVAL_MS: '0',
    // a burst of orders from one key is the load, not abuse
    PARTNERS_RATE_LIMIT_MAX: '1000000',
  }),
  orchestrator: (c) => ({
    // with replicas each one is given its own INTERNAL_PORT on top (replica-platform.ts)
    INTERNAL_PORT: new URL(c.orchestratorInternalUrl.split(',')[0]).port,
    AUTH_URL: url(c, 'auth'),
    LEDGER_URL: url(c, 'ledger-wallets'),
    PARTNERS_URL: url(c, 'partners'),
    WEBHOOK_DISPATCHER_URL: url(c, 'webhook-dispatcher'),
    // A registration run quiet for 8 s is taken over by the recovery job (production: 2 min), checked
    // every second: a run a kill -9 abandoned is finished or undone seconds after the restart, while
    // a run still driven by its request (a step rarely takes a second here) is never taken from it.
    SAGA_RECOVERY_STALE_MS: '8000',
    SAGA_RECOVERY_INTERVAL_MS: '1000',
  }),
};

/**
 * Every variable a service process gets. The service-credential part is here and only here: each
 * service presents its own key and recognises its callers' by digest (`serviceCredentialEnv`, as
 * `npm start` builds them), and a test presents the key of the caller it acts as (`keyOf`).
 */
export function environmentOf(
  name: ServiceName,
  infra: { pg: PrivatePostgres; redis: PrivateRedis },
  keys: ServiceKeys,
  context: EnvContext,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    DATABASE_URL: infra.pg.urlFor(name),
    DB_POOL_SIZE: '6',
    REDIS_URL: infra.redis.url,
    REDIS_PREFIX,
    ...serviceCredentialEnv(name, keys),
    ...SERVICE_ENV[name](context),
    ...overrides,
  };
}

export interface FaultPlatform {
  pg: PrivatePostgres;
  redis: PrivateRedis;
  dedupRedis?: PrivateRedis;
  signer: ConsentSigner;
  /** the X-Service-Key a test presents when it calls an internal route as `caller` (a service, or `ops`) would */
  keyOf(caller: CallerName): string;
  services: Partial<Record<ServiceName, ServiceProcess>>;
  service(name: ServiceName): ServiceProcess;
  /** the orchestrator's internal listener (its `/api/internal/*` routes) */
  orchestratorInternalUrl: string;
  close(): Promise<void>;
}

export async function startFaultPlatform(options: {
  services: ServiceName[];
  /** a second Redis for the deduplication store, so its outage can differ from the queue's */
  separateDedupRedis?: boolean;
  /** variables of one service on top of SERVICE_ENV's (e.g. a LEDGER_URL pointing at a proxy of the test) */
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
  // One key per caller, generated per case (never a committed secret).
  const keys = generateServiceKeys();
  const names = START_ORDER.filter((n) => options.services.includes(n));
  // Every service's port and the orchestrator's internal one, all distinct.
  const picked = await freePorts(names.length + 1);
  const ports = Object.fromEntries(names.map((n, k) => [n, picked[k]])) as Record<ServiceName, number>;
  const urls: Partial<Record<ServiceName, string>> = Object.fromEntries(names.map((n) => [n, `http://127.0.0.1:${ports[n]}`]));
  const context: EnvContext = {
    signer,
    urls,
    orchestratorInternalUrl: `http://127.0.0.1:${picked[names.length]}`,
    dedupRedisUrl: dedupRedis?.url,
    webhookKey: randomBytes(32).toString('base64'),
    pseudonymSecret: randomBytes(32).toString('hex'),
  };

  const services: Partial<Record<ServiceName, ServiceProcess>> = {};
  for (const name of names) {
    services[name] = new ServiceProcess(name, ports[name], environmentOf(name, { pg, redis }, keys, context, options.env?.[name]));
  }
  const platform: FaultPlatform = {
    pg,
    redis,
    dedupRedis,
    signer,
    keyOf: (caller) => keys[caller],
    services,
    service(name) {
      const s = services[name];
      if (!s) throw new Error(`${name} is not part of this fault platform`);
      return s;
    },
    orchestratorInternalUrl: context.orchestratorInternalUrl,
    async close() {
      await Promise.all(Object.values(services).map((s) => s.stop()));
      await Promise.all([pg.destroy(), redis.destroy(), dedupRedis?.destroy(), signer.close()]);
    },
  };
  try {
    for (const name of names) await services[name]!.start();
  } catch (error) {
    await platform.close();
    throw error;
  }
  return platform;
}
