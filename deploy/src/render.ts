import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { Namespace } from 'kubernetes-models/v1';
import { dump } from 'js-yaml';
import { values as defaultValues, type Values } from '../values';
import { APPS, PART_OF } from './apps';
import { appEnv, migrateEnvNames, readCompose } from './compose-env';
import { migrateJob } from './migrate';
import { networkPolicies } from './network';
import { type CustomObject, postgresObjects, recoveryExample } from './postgres';
import { redisObjects } from './redis';
import { appObjects } from './workloads';

/** Anything rendered: a kubernetes-models object (validated by its own schema) or a CloudNativePG object. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string; namespace?: string };
  validate?: () => void;
  toJSON?: () => unknown;
}

/**
 * The output, one folder per step of a rollout (deploy/README.md): `platform` (namespace, network
 * policies, PostgreSQL, Redis), then `migrate` (the Job, waited for), then `apps`. Each folder is a
 * Kustomize base, so `kubectl apply -k deploy/kubernetes/<step>` applies it; the examples are not part
 * of any step.
 */
export function manifests(values: Values = defaultValues): Record<string, Manifest[]> {
  const compose = readCompose();
  const files: Record<string, Manifest[]> = {};
  files['platform/namespace.yaml'] = [
    new Namespace({
      metadata: {
        name: values.namespace,
        // every pod here runs as non-root without privileges: the API server refuses any other
        labels: { ...PART_OF, 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest' },
      },
    }),
  ];
  files['platform/network-policies.yaml'] = networkPolicies(values);
  files['platform/postgres.yaml'] = postgresObjects(values);
  const redis = redisObjects(values);
  files['platform/redis.yaml'] = [redis.service, redis.statefulSet];

  const composeMigrate = migrateEnvNames(compose);
  const missing = composeMigrate.filter((name) => !values.secrets.migrate.includes(name));
  if (missing.length > 0)
    throw new Error(`migrate: docker-compose.yml gives it ${missing.join(', ')}, which deploy/values.ts does not list`);
  files['migrate/job.yaml'] = [migrateJob(values, values.secrets.migrate)];

  for (const app of APPS) {
    const o = appObjects(app, appEnv(app.name, compose, values), values);
    files[`apps/${app.name}.yaml`] = [o.configMap, o.deployment, o.service, o.pdb, o.hpa];
  }
  const gateway = APPS.find((a) => a.public)!;
  files['apps/ingress.yaml'] = [
    new Ingress({
      metadata: { name: gateway.name, namespace: values.namespace, labels: { ...PART_OF } },
      spec: {
        ingressClassName: values.ingress.className,
        tls: [{ hosts: [values.ingress.host], secretName: values.ingress.tlsSecretName }],
        rules: [
          {
            host: values.ingress.host,
            http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: gateway.name, port: { name: 'http' } } } }] },
          },
        ],
      },
    }),
  ];
  files['examples/point-in-time-recovery.yaml'] = recoveryExample(values);
  return files;
}

export const HEADER = '# Rendered by `npm run deploy:render` from deploy/values.ts and deploy/src/: edit those, not this file.\n';

export function plain(manifest: Manifest): unknown {
  return manifest.toJSON ? manifest.toJSON() : (manifest as CustomObject);
}

/**
 * Every file of deploy/kubernetes/ (path relative to it) and the documents it holds, as plain objects:
 * the manifests, and one kustomization.yaml per rollout step listing that step's files.
 */
export function renderDocuments(values: Values = defaultValues): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  const steps = new Map<string, string[]>();
  for (const [path, objects] of Object.entries(manifests(values))) {
    out[path] = objects.map(plain);
    const [step, file] = path.split('/');
    if (step !== 'examples') steps.set(step, [...(steps.get(step) ?? []), file]);
  }
  for (const [step, resources] of steps) {
    out[`${step}/kustomization.yaml`] = [{ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources }];
  }
  return out;
}

/** One file's text before formatting: the header, then its documents. */
export function toYaml(documents: unknown[]): string {
  return HEADER + documents.map((d) => dump(d, { noRefs: true, lineWidth: -1 })).join('---\n');
}
