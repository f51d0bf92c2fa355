/**
 * The soak's platform: which ports, and what each of the five services is started with. Every
 * variable a service receives is decided here (beside what `startService` of bench/partners adds:
 * NODE_ENV, the service's own database role, Redis, LOG_LEVEL; what else it adds is overridden
 * here), so a change in how services are configured — notably their credentials — is made in one place.
 */
import { randomBytes } from 'node:crypto';
import type { ServiceName } from '@mm/contracts';
import { OPS_CALLER, type ServiceKeys, deriveServiceKeys, serviceCredentialEnv } from '@mm/platform';
import type { PlatformPorts } from '../partners/services';
import { freePort } from '../../test/support/free-port';

interface Credentials {
  /** the credential variables of one service */
  service(service: ServiceName): Record<string, string>;
  /**
   * the key the bench itself presents on the only internal route it calls (the ledger's test
   * funding of the agents' floats, where the money enters the run)
   */
  benchCaller: string;
}

/**
 * One key per caller, generated per run (never a committed secret): each service presents its own
 * and recognises its callers' by digest (libs/platform's builder, as `npm start` and the tests do).
 * The bench funds the agents' floats as the operators' caller, the only one the ledger lets use the
 * test funding route.
 */
function perCallerKeys(keys: ServiceKeys): Credentials {
  return { service: (service) => ({ ...serviceCredentialEnv(service, keys) }), benchCaller: keys[OPS_CALLER] };
}

/**
 * The run's key seed. bench/partners' `startService` derives every caller's key from the seed it is
 * given; the soak hands it this one and sets the same derived keys itself (its env comes last), so
 * the credentials are decided here whichever of the two is read.
 */
export const KEY_SEED = randomBytes(32).toString('hex');

/** The one place credentials are decided: nothing else in the soak sets one. */
const CREDENTIALS: Credentials = perCallerKeys(deriveServiceKeys(KEY_SEED));

export const BENCH_CALLER_KEY = CREDENTIALS.benchCaller;

export async function choosePorts(): Promise<PlatformPorts> {
  const ports: number[] = [];
  while (ports.length < 6) {
    const p = await freePort();
    if (!ports.includes(p)) ports.push(p);
  }
  const [orchestrator, auth, partners, ledger, dispatcher, orchestratorInternal] = ports;
  return { orchestrator, auth, partners, ledger, dispatcher, orchestratorInternal };
}

/** The soak's administrator; `totpSecret` (base32, a benchmark value) is its second factor. */
export const BOOTSTRAP_ADMIN = { phone: '+237699000019', pin: '4826', totpSecret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ' };

const url = (port: number) => `http://127.0.0.1:${port}`;

/**
 * What each service gets beyond the common variables. Background work (ledger expiry sweep and
 * outbox, partners' order sweeper, orchestrator's reconciler and SMS relay) runs at its defaults: a
 * soak is meant to include it. Only the per-key partner rate limit is lifted, as in bench:partners,
 * because one partner key stands for many partners here.
 */
export function serviceEnv(
  service: ServiceName,
  ports: PlatformPorts,
  run: { webhookKey: string; pseudonymSecret: string },
): Record<string, string> {
  const own: Record<ServiceName, Record<string, string>> = {
    auth: {
      BOOTSTRAP_ADMIN_PHONE: BOOTSTRAP_ADMIN.phone,
      BOOTSTRAP_ADMIN_PIN: BOOTSTRAP_ADMIN.pin,
      BOOTSTRAP_ADMIN_TOTP_SECRET: BOOTSTRAP_ADMIN.totpSecret,
      // the administrator's token serves the whole set-up of the population
      STAFF_ACCESS_TOKEN_TTL_SEC: '900',
      TRUST_FORWARDED_FOR: 'true',
      // Every simulated user signs in from the loopback address, and a few dozen people stand for
      // a population: login limits per address and per phone are widened like the per-person
      // throttles of fixtures.ts.
      LOGIN_LIMIT_PER_IP: '1000000',
      LOGIN_LIMIT_PER_PHONE: '1000000',
    },
    'ledger-wallets': {
      AUTH_URL: url(ports.auth),
      LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
    },
    'webhook-dispatcher': { WEBHOOK_SECRET_ENCRYPTION_KEY: run.webhookKey },
    partners: {
      ORCHESTRATOR_URL: url(ports.orchestratorInternal),
      WEBHOOK_DISPATCHER_URL: url(ports.dispatcher),
      PARTNERS_RATE_LIMIT_MAX: '1000000000',
      PARTNERS_PSEUDONYM_SECRET: run.pseudonymSecret,
    },
    orchestrator: {
      INTERNAL_PORT: String(ports.orchestratorInternal),
      AUTH_URL: url(ports.auth),
      LEDGER_URL: url(ports.ledger),
      PARTNERS_URL: url(ports.partners),
      WEBHOOK_DISPATCHER_URL: url(ports.dispatcher),
      // Every fixture registers from 127.0.0.1: the per-address sign-up limit (50/h) would refuse them.
      REGISTRATION_MAX_PER_IP_PER_HOUR: '0',
      // The run's administrator revises the risk and limits sections alone (reviseConfig) and creates the
      // partner integration with its live key (fixtures.ts): no second approver.
      APPROVALS_ONE_PERSON_ACTIONS: 'CONFIG_CHANGE,PARTNER_KEY_ISSUE,PARTNER_KEY_REVOKE',
    },
  };
  return { ...own[service], ...CREDENTIALS.service(service) };
}

/** The order services start in: each one's upstreams first (partners reaches the orchestrator only on demand). */
export const START_ORDER: Array<{ service: ServiceName; port: keyof PlatformPorts }> = [
  { service: 'auth', port: 'auth' },
  { service: 'webhook-dispatcher', port: 'dispatcher' },
  { service: 'ledger-wallets', port: 'ledger' },
  { service: 'partners', port: 'partners' },
  { service: 'orchestrator', port: 'orchestrator' },
];
