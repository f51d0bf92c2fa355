/**
 * The whole platform at N replicas per service, private to one case: every replica is its own
 * process (a ServiceProcess, killable and restartable on its own port), and each caller is given
 * the comma-separated list of its upstream's replicas in its `*_URL`, the way `npm start` wires
 * MM_REPLICAS. The orchestrator's replicas get a public and an internal port each, as pods behind a
 * load balancer would, rather than sharing one port through the cluster module: the test itself is
 * the load balancer (BalancedCaller), so a kill -9 cuts exactly one replica and nothing else
 * restarts it behind the test's back.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { ServiceName } from '@mm/contracts';
import { type CallerName, generateServiceKeys } from '@mm/platform';
import { type ConsentSigner, startConsentSigner } from '../../../apps/ledger-wallets/test/consent-signer';
import { freePorts } from '../../support/free-port';
import { type PrivatePostgres, type PrivateRedis, startPrivatePostgres, startPrivateRedis } from './infra';
import { type EnvContext, START_ORDER, environmentOf } from './platform';
import { ServiceProcess } from './service-process';

export interface ReplicaPlatform {
  pg: PrivatePostgres;
  redis: PrivateRedis;
  signer: ConsentSigner;
  keyOf(caller: CallerName): string;
  /** the replicas of each service, index r = replica r */
  replicas: Record<ServiceName, ServiceProcess[]>;
  /** the orchestrator replicas' public listeners */
  gatewayUrls: string[];
  close(): Promise<void>;
}

export async function startReplicaPlatform(options: {
  replicas: number;
  /** variables of every replica of a service, on top of the fault cases' defaults */
  env?: Partial<Record<ServiceName, Record<string, string>>>;
  /** sees each replica (`service#r`) before its first start: where to attach log watchers */
  onReplica?: (process: ServiceProcess, label: string) => void;
}): Promise<ReplicaPlatform> {
  const n = options.replicas;
  const [pg, redis, signer] = await Promise.all([startPrivatePostgres(), startPrivateRedis(), startConsentSigner()]);
  const keys = generateServiceKeys();
  // one port per replica of each service, plus one internal port per orchestrator replica
  const picked = await freePorts(START_ORDER.length * n + n);
  const ports = Object.fromEntries(START_ORDER.map((s, k) => [s, picked.slice(k * n, (k + 1) * n)])) as Record<ServiceName, number[]>;
  const internalPorts = picked.slice(START_ORDER.length * n);
  // Auth's keys configured as production configures them: every replica signs and hashes with the same ones.
  const authKeys = {
    JWT_PRIVATE_KEY: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    OTP_HMAC_KEY: randomBytes(32).toString('hex'),
  };
  const list = (p: number[]) => p.map((port) => `http://127.0.0.1:${port}`).join(',');
  const context: EnvContext = {
    signer,
    urls: Object.fromEntries(START_ORDER.map((s) => [s, list(ports[s])])),
    orchestratorInternalUrl: list(internalPorts),
    webhookKey: randomBytes(32).toString('base64'),
    pseudonymSecret: randomBytes(32).toString('hex'),
  };
  const replicas = Object.fromEntries(
    START_ORDER.map((s) => [
      s,
      ports[s].map(
        (port, r) =>
          new ServiceProcess(
            s,
            port,
            environmentOf(s, { pg, redis }, keys, context, {
              ...(s === 'auth' ? authKeys : {}),
              ...options.env?.[s],
              ...(s === 'orchestrator' ? { INTERNAL_PORT: String(internalPorts[r]) } : {}),
            }),
          ),
      ),
    ]),
  ) as Record<ServiceName, ServiceProcess[]>;
  for (const s of START_ORDER) replicas[s].forEach((p, r) => options.onReplica?.(p, `${s}#${r}`));
  const platform: ReplicaPlatform = {
    pg,
    redis,
    signer,
    keyOf: (caller) => keys[caller],
    replicas,
    gatewayUrls: replicas.orchestrator.map((p) => p.url),
    async close() {
      await Promise.all(Object.values(replicas).flatMap((all) => all.map((p) => p.stop())));
      await Promise.all([pg.destroy(), redis.destroy(), signer.close()]);
    },
  };
  try {
    // A service's replicas boot together; services in the order their callers need them.
    for (const s of START_ORDER) await Promise.all(replicas[s].map((p) => p.start(90_000)));
  } catch (error) {
    await platform.close();
    throw error;
  }
  return platform;
}
