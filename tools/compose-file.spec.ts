import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { CORE_SCHEMA, load, mergeTag } from 'js-yaml';
import { InternalListenerConfig } from '@mm/platform';
import { AuthConfig } from '../apps/auth/src/auth.config';
import { LedgerWalletsConfig } from '../apps/ledger-wallets/src/ledger-wallets.config';
import { OrchestratorConfig } from '../apps/orchestrator/src/orchestrator.config';
import { PartnersConfig } from '../apps/partners/src/partners.config';
import { WebhookDispatcherConfig } from '../apps/webhook-dispatcher/src/webhook-dispatcher.config';
import { egressApps, linkNetwork, outsideNetwork, platformEdges } from '../deploy/src/edges';

/**
 * docker-compose.yml against what the apps read. A container only sees the variables its service's
 * `environment` lists (compose hands .env to the file's interpolation, not to the containers), and a
 * service on no network with a route outside cannot reach an address outside: the SMS provider,
 * an alert webhook, a partner's endpoint. Nothing here starts a container.
 */
interface ComposeService {
  command?: string[];
  networks?: string[];
  environment?: Record<string, string | number | boolean | null>;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  networks: Record<string, { internal?: boolean } | null>;
}

const root = join(__dirname, '..');
// The file uses YAML merge keys (`<<: *app`), which js-yaml reads only with its merge tag.
const compose = load(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { schema: CORE_SCHEMA.withTags(mergeTag) }) as ComposeFile;

/** Each app's config class: the one place it reads its environment. */
const CONFIGS: Record<string, Array<new () => object>> = {
  orchestrator: [OrchestratorConfig, InternalListenerConfig], // its internal listener reads its own two
  auth: [AuthConfig],
  partners: [PartnersConfig],
  'ledger-wallets': [LedgerWalletsConfig],
  'webhook-dispatcher': [WebhookDispatcherConfig],
};

/**
 * Settings of tests and development that compose (NODE_ENV=production) never passes on: the apps refuse
 * the switches in production (a stray one in .env would stop an app from starting) and ignore the
 * development key file (production requires WEBHOOK_SECRET_ENCRYPTION_KEY).
 */
const NOT_IN_CONTAINERS = new Set([
  'SAGA_FAULT_INJECTION',
  'PAYMENTS_FAULT_INJECTION',
  'LEDGER_TEST_FUNDING_ENABLED',
  'WEBHOOK_ALLOW_LOOPBACK_URLS',
  'WEBHOOK_DEV_KEY_FILE',
]);

/** Why a service needs a route outside other than a URL in its configuration. */
const EGRESS_BY_ROLE: Record<string, string> = {
  orchestrator: 'its port is published on the host',
  'webhook-dispatcher': "it delivers to partners' endpoints, registered at run time",
};

/** The variables a config class reads: every validated property (the rule `loadConfig` applies). */
function variablesOf(cls: new () => object): string[] {
  return getMetadataStorage()
    .getTargetValidationMetadatas(cls, '', true, false)
    .map((m) => m.propertyName);
}

/** The app a compose service runs, from its command (`node dist/apps/<app>/src/main.js`). */
function appOf(service: ComposeService): string | undefined {
  return /^dist\/apps\/([a-z-]+)\/src\/main\.js$/.exec(service.command?.[1] ?? '')?.[1];
}

const apps = Object.entries(compose.services).flatMap(([name, service]) => {
  const app = appOf(service);
  if (!app) return [];
  const defaults: Record<string, unknown> = Object.assign({}, ...CONFIGS[app].map((cls) => new cls()));
  return [{ name, app, service, env: service.environment ?? {}, reads: new Set(CONFIGS[app].flatMap(variablesOf)), defaults }];
});

function hasEgress(service: ComposeService): boolean {
  return (service.networks ?? []).some((n) => compose.networks[n]?.internal !== true);
}

/**
 * Where a URL variable points: another compose service (`http://auth:3001`, `postgres://…@postgres`) is
 * inside; a value that is only an operator's setting (`${SMS_PROVIDER_URL:?…}`) or any other host is
 * outside. An empty default still names an outside address once an operator sets it.
 */
function pointsOutside(value: string): boolean {
  if (/^\$\{[A-Z0-9_]+(?::?[-?][^}]*)?\}$/.test(value)) return true;
  const host = new URL(value.replace(/\$\{[^}]*\}/g, 'x')).hostname;
  return !(host in compose.services);
}

/** Variables .env.example sets or shows (commented out), i.e. that an operator may put in .env. */
const envExample = new Set([...readFileSync(join(root, '.env.example'), 'utf8').matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]));

describe('docker-compose.yml', () => {
  it('runs the five apps', () => {
    expect(apps.map((a) => a.app).sort()).toEqual(Object.keys(CONFIGS).sort());
  });

  it.each(apps.map((a) => [a.name, a] as const))('%s reads no variable that .env.example leaves out', (_name, a) => {
    // So that the next check sees every variable: an operator only learns of a setting from .env.example.
    expect([...a.reads].filter((v) => !envExample.has(v))).toEqual([]);
  });

  it.each(apps.map((a) => [a.name, a] as const))('%s passes every variable it reads that .env.example offers', (_name, a) => {
    const missing = [...a.reads].filter((v) => envExample.has(v) && !NOT_IN_CONTAINERS.has(v) && !(v in a.env));
    expect(missing).toEqual([]);
  });

  it.each(apps.map((a) => [a.name, a] as const))('%s passes only variables it reads, and no test switch', (_name, a) => {
    expect(Object.keys(a.env).filter((v) => !a.reads.has(v) || NOT_IN_CONTAINERS.has(v))).toEqual([]);
  });

  it.each(apps.map((a) => [a.name, a] as const))("%s falls back to the app's own default when .env leaves a variable out", (_name, a) => {
    // `${X:-d}` puts d in the container when .env has no X: d must be what the app would use anyway.
    const drifted = Object.entries(a.env).flatMap(([v, value]) => {
      const fallback = typeof value === 'string' ? new RegExp(`^\\$\\{${v}:-([^}]*)\\}$`).exec(value)?.[1] : undefined;
      const own = a.defaults[v] === undefined ? '' : String(a.defaults[v]);
      return fallback !== undefined && fallback !== own ? [`${v}: compose ${fallback}, app ${own}`] : [];
    });
    expect(drifted).toEqual([]);
  });

  it.each(apps.map((a) => [a.name, a] as const))(
    '%s has a route outside exactly when its configuration or its role needs one',
    (_name, a) => {
      const outbound = Object.entries(a.env)
        .filter(([v, value]) => v.endsWith('_URL') && typeof value === 'string' && pointsOutside(value))
        .map(([v]) => v);
      const needs = outbound.length > 0 || a.name in EGRESS_BY_ROLE;
      expect({ outbound, egress: hasEgress(a.service) }).toEqual({ outbound, egress: needs });
    },
  );

  it('keeps PostgreSQL, Redis and the migration off any route outside', () => {
    for (const name of ['postgres', 'redis', 'migrate']) expect([name, hasEgress(compose.services[name])]).toEqual([name, false]);
  });

  it('reads a URL outside only where it is one (the check itself)', () => {
    expect(pointsOutside('${SMS_PROVIDER_URL:?set SMS_PROVIDER_URL in .env}')).toBe(true);
    expect(pointsOutside('${LEDGER_INTEGRITY_ALERT_URL:-}')).toBe(true);
    expect(pointsOutside('https://alerts.example.com/hook')).toBe(true);
    expect(pointsOutside('http://auth:3001')).toBe(false);
    expect(pointsOutside('postgres://svc_auth:${SVC_AUTH_PASSWORD:?x}@postgres:5432/mobile_money')).toBe(false);
    expect(pointsOutside('redis://:${REDIS_PASSWORD:?x}@redis:6379')).toBe(false);
  });
});

/**
 * The compose networks against deploy/src/edges.ts, the table the Kubernetes NetworkPolicies are built
 * from (test/deploy/manifests.test.ts pins what those allow), so the two layouts cannot drift apart.
 * `npm run test:compose` then tries every pair of containers for real.
 */
describe('docker-compose.yml networks', () => {
  const members = (network: string): string =>
    Object.entries(compose.services)
      .filter(([, s]) => (s.networks ?? []).includes(network))
      .map(([name]) => name)
      .sort()
      .join(' ');
  const networks = Object.keys(compose.networks);
  const isolated = networks.filter((n) => compose.networks[n]?.internal === true);
  const edges = platformEdges();

  it('declares every network a service joins', () => {
    const undeclared = Object.entries(compose.services).flatMap(([name, s]) =>
      (s.networks ?? []).filter((n) => !(n in compose.networks)).map((n) => `${name}: ${n}`),
    );
    expect(undeclared).toEqual([]);
  });

  it('links exactly the two ends of each edge of deploy/, one network per pair', () => {
    const pairs = new Set(edges.map((e) => [e.from, e.to].sort().join(' ')));
    expect(isolated.map(members).sort()).toEqual([...pairs].sort());
  });

  it('names each link <caller>-to-<callee> after an edge it carries', () => {
    const named = new Map(edges.map((e) => [linkNetwork(e.from, e.to), [e.from, e.to].sort().join(' ')]));
    expect(isolated.filter((n) => named.get(n) !== members(n))).toEqual([]);
  });

  it('gives a route outside to the apps the NetworkPolicies let out, each on its own network', () => {
    const routed = networks.filter((n) => compose.networks[n]?.internal !== true);
    expect(Object.fromEntries(routed.map((n) => [n, members(n)]))).toEqual(
      Object.fromEntries(egressApps().map((app) => [outsideNetwork(app), app])),
    );
  });
});
