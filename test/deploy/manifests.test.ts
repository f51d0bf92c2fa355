import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { loadAll } from 'js-yaml';
import { InternalListenerConfig, loadConfig } from '@mm/platform';
import { AuthConfig, assertProductionSecrets } from '../../apps/auth/src/auth.config';
import { LedgerWalletsConfig, assertLedgerProductionConfig } from '../../apps/ledger-wallets/src/ledger-wallets.config';
import { OrchestratorConfig, assertOrchestratorProductionConfig } from '../../apps/orchestrator/src/orchestrator.config';
import { PartnersConfig } from '../../apps/partners/src/partners.config';
import { WebhookDispatcherConfig } from '../../apps/webhook-dispatcher/src/webhook-dispatcher.config';
import { values } from '../../deploy/values';
import { APPS, type AppName, LABEL_NAME } from '../../deploy/src/apps';
import { readCompose } from '../../deploy/src/compose-env';
import { HEADER, type Manifest, manifests, renderDocuments } from '../../deploy/src/render';
import { generateSecrets } from '../../deploy/src/secrets';
import { PROBED_PORTS, allowedEdges } from './network-policy-eval';

/**
 * The Kubernetes deployment, checked offline (no cluster is reachable from here): the committed YAML is
 * what `npm run deploy:render` writes, every object passes the Kubernetes or CloudNativePG schema, and
 * the deployment's rules hold: probes, resources, disruption budgets, autoscalers, credentials only from
 * their service's Secret, the same variables as docker-compose.yml, exactly the intended network edges
 * (listed in deploy/README.md "Checks").
 */
const DEPLOY = join(__dirname, '..', '..', 'deploy');
const OUT = join(DEPLOY, 'kubernetes');
const files = manifests(values);
const all: Manifest[] = Object.values(files).flat();
const ofKind = <T = any>(kind: string): T[] => all.filter((m) => m.kind === kind) as T[];
const compose = readCompose();

/** Kinds CloudNativePG and its Barman Cloud plugin define, and their schemas kept under deploy/schemas. */
const CUSTOM_SCHEMAS: Record<string, string> = {
  'postgresql.cnpg.io/v1 Cluster': 'postgresql.cnpg.io_v1_Cluster.json',
  'postgresql.cnpg.io/v1 Pooler': 'postgresql.cnpg.io_v1_Pooler.json',
  'postgresql.cnpg.io/v1 ScheduledBackup': 'postgresql.cnpg.io_v1_ScheduledBackup.json',
  'barmancloud.cnpg.io/v1 ObjectStore': 'barmancloud.cnpg.io_v1_ObjectStore.json',
};

/**
 * kubectl apply validates fields strictly (an unknown field is an error, not dropped): the CRD schemas
 * leave `additionalProperties` open, so close it wherever the schema lists properties and does not
 * keep unknown fields. CEL rules (x-kubernetes-validations) are not evaluated offline.
 */
function strict(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strict);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node))
    out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, strict(s)])) : strict(v);
  if (out.properties && out.additionalProperties === undefined && !out['x-kubernetes-preserve-unknown-fields'])
    out.additionalProperties = false;
  return out;
}

function customValidators(): Record<string, ValidateFunction> {
  // no code optimisation: compiling these large schemas takes half the time, and they validate a few objects once
  const ajv = new Ajv({ strict: false, allErrors: true, code: { optimize: false } });
  addFormats(ajv);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && Math.abs(n) < 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  return Object.fromEntries(
    Object.entries(CUSTOM_SCHEMAS).map(([key, file]) => [
      key,
      ajv.compile(strict(JSON.parse(readFileSync(join(DEPLOY, 'schemas', file), 'utf8'))) as object),
    ]),
  );
}

function schemaErrors(validators: Record<string, ValidateFunction>, object: Manifest): string[] {
  if (object.validate) {
    try {
      object.validate();
      return [];
    } catch (error) {
      return [(error as Error).message];
    }
  }
  const validate = validators[`${object.apiVersion} ${object.kind}`];
  if (!validate) return [`no schema for ${object.apiVersion} ${object.kind}`];
  return validate(JSON.parse(JSON.stringify(object))) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

const composeEnv = (service: string): string[] => Object.keys(compose.services[service].environment ?? {}).sort();
const deployment = (app: AppName): any => ofKind('Deployment').find((d) => d.metadata.name === app);
const configMap = (name: string): any => ofKind('ConfigMap').find((c) => c.metadata.name === name);

describe('rendered manifests (deploy/kubernetes)', () => {
  it('are what npm run deploy:render writes from deploy/values.ts and docker-compose.yml', () => {
    const expected = renderDocuments(values);
    const onDisk = readdirSync(OUT, { recursive: true })
      .map(String)
      .filter((p) => p.endsWith('.yaml'))
      .sort();
    expect(onDisk).toEqual(Object.keys(expected).sort());
    for (const [path, documents] of Object.entries(expected)) {
      const text = readFileSync(join(OUT, path), 'utf8');
      expect(text.startsWith(HEADER)).toBe(true);
      // compared as data (the file's formatting is prettier's, checked by npm run lint)
      expect({ path, documents: loadAll(text) }).toEqual({ path, documents: JSON.parse(JSON.stringify(documents)) });
    }
  });

  it('pass the Kubernetes schemas (kubernetes-models) and the CloudNativePG CRD schemas', () => {
    const validators = customValidators();
    const secrets = generateSecrets(values);
    const failures = [...all, ...secrets].flatMap((o) => schemaErrors(validators, o).map((e) => `${o.kind}/${o.metadata?.name}: ${e}`));
    expect(failures).toEqual([]);
    expect(
      all
        .filter((o) => !o.validate)
        .map((o) => o.kind)
        .sort(),
    ).toEqual(['Cluster', 'Cluster', 'ObjectStore', 'ObjectStore', 'Pooler', 'ScheduledBackup']);

    // the validators can fail: a wrong type, an unknown field, an out-of-range enum
    const cluster = ofKind<any>('Cluster')[0];
    expect(schemaErrors(validators, { ...cluster, spec: { ...cluster.spec, instances: 'three' } })).not.toEqual([]);
    expect(schemaErrors(validators, { ...cluster, spec: { ...cluster.spec, instancez: 3 } })).not.toEqual([]);
    const pooler = ofKind<any>('Pooler')[0];
    expect(schemaErrors(validators, { ...pooler, spec: { ...pooler.spec, pgbouncer: { poolMode: 'statementish' } } })).not.toEqual([]);
    const { Deployment } = jest.requireActual('kubernetes-models/apps/v1');
    const broken = new Deployment({ ...deployment('auth').toJSON(), spec: { ...deployment('auth').spec, replicas: 'two' } });
    expect(schemaErrors(validators, broken)).not.toEqual([]);
  });
});

describe('every app', () => {
  it.each(APPS.map((a) => [a.name, a] as const))(
    '%s: readiness on /health, startup and liveness on /health/live, resources, non-root, graceful stop, PDB and CPU HPA',
    (name, app) => {
      const d = deployment(name);
      const pod = d.spec.template.spec;
      const [c] = pod.containers;
      expect(c.command).toEqual((compose.services[name] as { command?: string[] }).command);
      expect(c.image).toBe(values.image);
      expect(c.ports.find((p: any) => p.name === 'http').containerPort).toBe(app.port);
      // liveness must not depend on PostgreSQL or Redis: an outage would restart every pod
      expect([c.startupProbe, c.readinessProbe, c.livenessProbe].map((p: any) => p.httpGet)).toEqual([
        { path: '/health/live', port: 'http' },
        { path: '/health', port: 'http' },
        { path: '/health/live', port: 'http' },
      ]);
      expect(c.resources.requests).toEqual(expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }));
      expect(c.resources.limits).toEqual(expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }));
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(c.securityContext).toEqual(expect.objectContaining({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false }));
      const shutdownSec = Number(configMap(`${name}-config`).data.SHUTDOWN_TIMEOUT_MS) / 1000;
      const preStopSec = Number(c.lifecycle.preStop.exec.command[1]);
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(preStopSec + shutdownSec);
      expect(d.spec.replicas).toBeUndefined();

      const selects = (o: any) => JSON.stringify(o.spec.selector.matchLabels) === JSON.stringify(d.spec.selector.matchLabels);
      expect(ofKind('PodDisruptionBudget').filter(selects)).toHaveLength(1);
      const hpa = ofKind<any>('HorizontalPodAutoscaler').filter(
        (h) => h.spec.scaleTargetRef.name === name && h.spec.scaleTargetRef.kind === 'Deployment',
      );
      expect(hpa).toHaveLength(1);
      expect(hpa[0].apiVersion).toBe('autoscaling/v2');
      expect(hpa[0].spec.metrics).toEqual([
        expect.objectContaining({ type: 'Resource', resource: expect.objectContaining({ name: 'cpu' }) }),
      ]);
      expect(hpa[0].spec.minReplicas).toBeGreaterThanOrEqual(2);
    },
  );

  it.each(APPS.map((a) => a.name))(
    '%s: exactly the variables docker-compose.yml gives it, credentials only from its own Secret',
    (name) => {
      const c = deployment(name).spec.template.spec.containers[0];
      expect(c.envFrom).toEqual([{ configMapRef: { name: `${name}-config` } }]);
      const config = configMap(`${name}-config`).data as Record<string, string>;
      for (const env of c.env) {
        expect(env.value).toBeUndefined();
        expect(env.valueFrom.secretKeyRef).toEqual({ name: `${name}-secrets`, key: env.name });
      }
      const secretNames = c.env.map((e: any) => e.name);
      expect([...Object.keys(config), ...secretNames].sort()).toEqual(composeEnv(name));
      expect(secretNames.sort()).toEqual([...values.secrets[name]].sort());
      // nothing credential-like left in the ConfigMap: no password in a URL, no key, no secret
      for (const [key, value] of Object.entries(config)) {
        expect({ key, userinfo: /:\/\/[^/\s]*@/.test(value) }).toEqual({ key, userinfo: false });
        const credentialName = /(PASSWORD|_SECRET$|PRIVATE_KEY|SERVICE_KEY$|ENCRYPTION_KEY$|ANCHOR_KEY$|HMAC_KEY$|PEPPER$|_TOKEN$|_PIN$)/;
        expect({ key, named: credentialName.test(key) }).toEqual({ key, named: false });
      }
    },
  );

  // What each app does with its environment at boot (AppDefinition: loadConfig; the module's production checks).
  const BOOT: Record<AppName, (env: Record<string, string>) => void> = {
    orchestrator: (env) => {
      assertOrchestratorProductionConfig(loadConfig(OrchestratorConfig, env));
      loadConfig(InternalListenerConfig, env);
    },
    auth: (env) => assertProductionSecrets(loadConfig(AuthConfig, env)),
    partners: (env) => loadConfig(PartnersConfig, env),
    'ledger-wallets': (env) => assertLedgerProductionConfig(loadConfig(LedgerWalletsConfig, env)),
    'webhook-dispatcher': (env) => loadConfig(WebhookDispatcherConfig, env),
  };

  it.each(APPS.map((a) => a.name))('%s accepts its rendered ConfigMap with generated Secrets as its production configuration', (name) => {
    const secrets = Object.fromEntries(
      generateSecrets(values, { OPS_SERVICE_KEY_SHA256: 'b'.repeat(64) }).map((s) => [s.metadata!.name!, s.stringData!]),
    );
    const env = { ...(configMap(`${name}-config`).data as Record<string, string>), ...secrets[`${name}-secrets`] };
    expect(env.NODE_ENV).toBe('production');
    expect(() => BOOT[name](env)).not.toThrow();
    // and refuses it without one of its credentials, so the check means something
    expect(() => BOOT[name]({ ...env, DATABASE_URL: undefined as never, INTERNAL_SERVICE_KEY: 'short' })).toThrow();
  });

  it('the migration Job gets exactly compose migrate’s variables, from its Secret, and runs tools/migrate', () => {
    const [job] = ofKind<any>('Job');
    const c = job.spec.template.spec.containers[0];
    expect(c.command).toEqual(['node', 'dist/tools/migrate.js']);
    expect(c.env.map((e: any) => e.name).sort()).toEqual(composeEnv('migrate'));
    for (const env of c.env) expect(env.valueFrom.secretKeyRef).toEqual({ name: 'migrate-secrets', key: env.name });
    expect(Object.keys(files).filter((p) => p.startsWith('migrate/'))).toEqual(['migrate/job.yaml']);
  });

  it('every Secret reference names a key the generated Secrets hold, and the generated values agree with each other', () => {
    const secrets = Object.fromEntries(
      generateSecrets(values, { OPS_SERVICE_KEY_SHA256: 'a'.repeat(64) }).map((s) => [s.metadata!.name!, s.stringData!]),
    );
    const refs = JSON.stringify(all).match(/"secretKeyRef":\{"name":"[^"]+","key":"[^"]+"\}/g) ?? [];
    expect(refs.length).toBeGreaterThan(30);
    for (const ref of refs) {
      const { name, key } = JSON.parse(ref.slice('"secretKeyRef":'.length));
      expect({ name, key, present: secrets[name]?.[key] !== undefined }).toEqual({ name, key, present: true });
    }
    // the migration sets the password each app's DATABASE_URL uses; the apps share Redis's password
    const password = (url: string) => decodeURIComponent(new URL(url).password);
    expect(password(secrets['auth-secrets'].DATABASE_URL)).toBe(secrets['migrate-secrets'].SVC_AUTH_PASSWORD);
    expect(password(secrets['ledger-wallets-secrets'].DATABASE_URL)).toBe(secrets['migrate-secrets'].SVC_LEDGER_PASSWORD);
    expect(password(secrets['migrate-secrets'].DATABASE_URL)).toBe(secrets['postgres-superuser-secrets'].password);
    expect(password(secrets['partners-secrets'].REDIS_URL)).toBe(secrets['redis-secrets'].REDIS_PASSWORD);
    expect(new URL(secrets['auth-secrets'].DATABASE_URL).host).toBe(`${values.postgres.poolerName}:5432`);
    // every app trusts the other four apps' keys and the operators' digest, never its own
    const { createHash } = jest.requireActual('node:crypto');
    const digest = (s: string) => createHash('sha256').update(s).digest('hex');
    const callers = secrets['ledger-wallets-secrets'].INTERNAL_TRUSTED_CALLERS.split(',');
    expect(callers).toHaveLength(5);
    expect(callers).toContain(`orchestrator:${digest(secrets['orchestrator-secrets'].INTERNAL_SERVICE_KEY)}`);
    expect(callers).toContain(`ops:${'a'.repeat(64)}`);
    expect(callers.some((c: string) => c.startsWith('ledger-wallets:'))).toBe(false);
  });
});

describe('exposure and network', () => {
  it('only the orchestrator is reachable from outside: one Ingress to its public port, every Service ClusterIP', () => {
    expect(ofKind<any>('Service').map((s) => s.spec.type)).toEqual(ofKind('Service').map(() => 'ClusterIP'));
    const ingresses = ofKind<any>('Ingress');
    expect(ingresses).toHaveLength(1);
    const backends = ingresses[0].spec.rules.flatMap((r: any) => r.http.paths.map((p: any) => p.backend.service));
    expect(backends).toEqual([{ name: 'orchestrator', port: { name: 'http' } }]);
    // behind it the orchestrator takes the client from the controller's X-Forwarded-For, else every
    // client would share the controller's address in the per-address limits
    expect(configMap('orchestrator-config').data.TRUSTED_PROXIES).toMatch(/\S/);
  });

  it('NetworkPolicies allow exactly the intended edges', () => {
    const apps = ['orchestrator', 'auth', 'partners', 'ledger-wallets', 'webhook-dispatcher'];
    const inNamespace = [...apps, 'migrate', 'redis', 'pooler', 'postgres'];
    const expected = [
      'ingress-controller -> orchestrator tcp/3000',
      'orchestrator -> auth tcp/3001',
      'orchestrator -> partners tcp/3002',
      'orchestrator -> ledger-wallets tcp/3003',
      'orchestrator -> webhook-dispatcher tcp/3004',
      'partners -> orchestrator tcp/3100',
      'partners -> webhook-dispatcher tcp/3004',
      'ledger-wallets -> auth tcp/3001',
      ...apps.flatMap((a) => [`${a} -> pooler tcp/5432`, `${a} -> redis tcp/6379`]),
      // the apps compose gives a route-out network (<app>-out): orchestrator, auth, ledger-wallets, webhook-dispatcher; never partners
      // (any port: a partner's endpoint or an alert webhook may listen anywhere)
      ...['orchestrator', 'auth', 'ledger-wallets', 'webhook-dispatcher'].flatMap((a) =>
        PROBED_PORTS.map((port) => `${a} -> internet ${port}`),
      ),
      'migrate -> postgres tcp/5432',
      'pooler -> postgres tcp/5432',
      'pooler -> api-server tcp/443',
      'pooler -> api-server tcp/6443',
      'postgres -> postgres tcp/5432',
      'postgres -> postgres tcp/8000',
      'postgres -> api-server tcp/443',
      'postgres -> api-server tcp/6443',
      'postgres -> internet tcp/443',
      'cnpg-operator -> postgres tcp/5432',
      'cnpg-operator -> postgres tcp/8000',
      ...inNamespace.flatMap((p) => [`${p} -> kube-dns udp/53`, `${p} -> kube-dns tcp/53`]),
    ];
    expect(allowedEdges(ofKind('NetworkPolicy'), values).sort()).toEqual(expected.sort());
  });
});

describe('PostgreSQL and Redis', () => {
  it('PostgreSQL: three instances, a synchronous standby, a session-mode pooler, WAL archiving, daily backups, a PITR example', () => {
    const [cluster] = ofKind<any>('Cluster');
    expect(cluster.spec.instances).toBe(3);
    expect(cluster.spec.postgresql.synchronous.number).toBeGreaterThanOrEqual(1);
    expect(cluster.spec.plugins).toEqual([expect.objectContaining({ isWALArchiver: true })]);
    const [pooler] = ofKind<any>('Pooler');
    expect(pooler.spec).toEqual(expect.objectContaining({ cluster: { name: cluster.metadata.name }, type: 'rw' }));
    // session-level advisory locks (pg_advisory_lock … pg_advisory_unlock) need one server session per client session
    expect(pooler.spec.pgbouncer.poolMode).toBe('session');
    const [backup] = ofKind<any>('ScheduledBackup');
    expect(backup.spec).toEqual(expect.objectContaining({ cluster: { name: cluster.metadata.name }, method: 'plugin' }));
    const recovery = files['examples/point-in-time-recovery.yaml'].find((o) => o.kind === 'Cluster') as any;
    expect(recovery.spec.bootstrap.recovery.recoveryTarget.targetTime).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('PostgreSQL connections: every app at its largest scale fits the pooler and the server', () => {
    // per process: its pool, one job-lease connection (libs/platform job-lease.postgres.ts), and the
    // ledger's statement pool
    const perProcess = (app: AppName): number => {
      const data = configMap(`${app}-config`).data as Record<string, string>;
      return Number(data.DB_POOL_SIZE) + 1 + (app === 'ledger-wallets' ? Number(data.LEDGER_STATEMENT_POOL_SIZE) : 0);
    };
    // one more pod of each app during a rolling update (maxSurge 1), plus the orchestrator's session-lock
    // connections (libs/platform session-lock.ts): one per periodic job that locks (approval sweep,
    // chain witness, report deadlines, daily report), each job run by its lease holder only, so four for
    // the whole fleet (deploy/README.md)
    const SESSION_LOCK_CONNECTIONS = 4;
    const demand = APPS.reduce((sum, a) => sum + (values.apps[a.name].maxReplicas + 1) * perProcess(a.name), 0) + SESSION_LOCK_CONNECTIONS;
    const { pooler, maxConnections } = values.postgres;
    expect(demand).toBeLessThanOrEqual(pooler.instances * pooler.maxDbConnections);
    // a few connections stay for the superuser, replication and the operator
    expect(pooler.instances * pooler.maxDbConnections).toBeLessThanOrEqual(maxConnections - 20);
    const [rendered] = ofKind<any>('Pooler');
    expect(rendered.spec.pgbouncer.parameters.max_db_connections).toBe(String(pooler.maxDbConnections));
    expect(ofKind<any>('Cluster')[0].spec.postgresql.parameters.max_connections).toBe(String(maxConnections));
  });

  it('Redis: AOF on a volume, noeviction, its password from its Secret and never on the command line', () => {
    const [redis] = ofKind<any>('StatefulSet');
    const c = redis.spec.template.spec.containers[0];
    const script = c.command.join(' ');
    expect(script).toMatch(/appendonly yes/);
    expect(script).toMatch(/maxmemory-policy noeviction/);
    expect(script).toMatch(/requirepass \$REDIS_PASSWORD/);
    expect(script).toMatch(/redis-server - <</);
    expect(c.env.find((e: any) => e.name === 'REDIS_PASSWORD').valueFrom.secretKeyRef).toEqual({
      name: 'redis-secrets',
      key: 'REDIS_PASSWORD',
    });
    expect(c.volumeMounts).toEqual([{ name: 'data', mountPath: '/data' }]);
    expect(redis.spec.volumeClaimTemplates[0].metadata.name).toBe('data');
    expect(redis.spec.template.metadata.labels[LABEL_NAME]).toBe('redis');
  });
});
