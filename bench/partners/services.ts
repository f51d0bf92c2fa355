import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { SERVICES, type ServiceName, serviceDatabaseUrl } from '@mm/contracts';
import { deriveServiceKeys, serviceCredentialEnv } from '@mm/platform';
import { stopWithRun } from '../lib/run-children';

export interface PlatformPorts {
  orchestrator: number;
  orchestratorInternal: number;
  auth: number;
  partners: number;
  ledger: number;
  dispatcher: number;
}

export function portsFrom(base: number): PlatformPorts {
  return {
    orchestrator: base,
    auth: base + 1,
    partners: base + 2,
    ledger: base + 3,
    dispatcher: base + 4,
    orchestratorInternal: base + 100,
  };
}

const MAIN: Record<ServiceName, string> = {
  orchestrator: 'orchestrator',
  auth: 'auth',
  partners: 'partners',
  'ledger-wallets': 'ledger-wallets',
  'webhook-dispatcher': 'webhook-dispatcher',
};

/** Partners' merchant pseudonyms: one secret per bench run (required outside development). */
const PSEUDONYM_SECRET = randomBytes(32).toString('hex');

/**
 * The five services as separate processes from the build (dist/), as `npm start` runs them, so the
 * load generator's event loop is not theirs. `serviceKey` is the run's key seed: each service gets
 * its own key derived from it and the digests of the others' (docs/service-credentials.md); the
 * bench presents `deriveServiceKeys(serviceKey).<caller>` on the internal routes it calls.
 */
export async function startService(
  service: ServiceName,
  port: number,
  env: { adminUrl: string; redisUrl: string; redisPrefix: string; serviceKey: string; extra?: Record<string, string> },
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(__dirname, `../../apps/${MAIN[service]}/src/main.js`)], {
    env: {
      PATH: process.env.PATH,
      ...(process.env.NODE_PATH ? { NODE_PATH: process.env.NODE_PATH } : {}),
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: serviceDatabaseUrl(env.adminUrl, service),
      DB_POOL_SIZE: process.env.BENCH_DB_POOL_SIZE ?? '10',
      REDIS_URL: env.redisUrl,
      REDIS_PREFIX: env.redisPrefix,
      ...serviceCredentialEnv(service, deriveServiceKeys(env.serviceKey)),
      ...(service === 'partners' ? { PARTNERS_PSEUDONYM_SECRET: PSEUDONYM_SECRET } : {}),
      ...env.extra,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  stopWithRun(child);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${service} exited with ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      if (res.status === 200) return child;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`${service} did not start on ${port}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export { SERVICES };
