import { createHash } from 'node:crypto';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import {
  ConfigMap,
  Service,
  type IContainer,
  type IContainerPort,
  type IEnvVar,
  type IPodSecurityContext,
  type ISecurityContext,
  type IServicePort,
} from 'kubernetes-models/v1';
import type { Values } from '../values';
import { type AppEnv } from './compose-env';
import { type AppShape, LABEL_NAME, configMapNameOf, labelsOf, secretNameOf } from './apps';

/** The image's `node` user (Dockerfile: USER node): never root, nothing written outside /tmp. */
export const POD_SECURITY: IPodSecurityContext = {
  runAsNonRoot: true,
  runAsUser: 1000,
  runAsGroup: 1000,
  fsGroup: 1000,
  seccompProfile: { type: 'RuntimeDefault' },
};
export const CONTAINER_SECURITY: ISecurityContext = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
};

/** Seconds between the endpoint's removal and SIGTERM, so that no new request is routed to a pod that stops. */
const PRE_STOP_SECONDS = 5;

export function secretEnv(owner: string, keys: string[]): IEnvVar[] {
  return keys.map((key) => ({ name: key, valueFrom: { secretKeyRef: { name: secretNameOf(owner), key } } }));
}

export function appObjects(app: AppShape, env: AppEnv, values: Values) {
  const size = values.apps[app.name];
  const labels = labelsOf(app.name, 'app');
  const selector = { [LABEL_NAME]: app.name };
  const shutdownMs = Number(env.config.SHUTDOWN_TIMEOUT_MS);
  if (!Number.isFinite(shutdownMs)) throw new Error(`${app.name}: SHUTDOWN_TIMEOUT_MS must be a number`);
  const metadata = { name: app.name, namespace: values.namespace, labels };

  const configMap = new ConfigMap({
    metadata: { ...metadata, name: configMapNameOf(app.name) },
    data: env.config,
  });
  const probe = (path: '/health' | '/health/live', periodSeconds: number, failureThreshold: number) => ({
    httpGet: { path, port: 'http' },
    periodSeconds,
    timeoutSeconds: 3,
    failureThreshold,
  });
  const ports: IContainerPort[] = [{ name: 'http', containerPort: app.port, protocol: 'TCP' }];
  if (app.internalPort) ports.push({ name: 'internal', containerPort: app.internalPort, protocol: 'TCP' });
  const container: IContainer = {
    name: app.name,
    image: values.image,
    imagePullPolicy: values.imagePullPolicy,
    command: app.command,
    ports,
    envFrom: [{ configMapRef: { name: configMapNameOf(app.name) } }],
    env: secretEnv(app.name, env.secrets),
    resources: size.resources,
    // Boot may take a while (migrations already ran, but pools and queues connect): the app listens
    // only once it has, and until then no other probe runs. /health/live, so that a database down
    // during a rollout leaves new pods unready rather than crash-looping.
    startupProbe: probe('/health/live', 5, 24),
    // Readiness: /health checks the database and Redis, so a pod that cannot reach them takes no traffic...
    readinessProbe: probe('/health', 10, 3),
    // ...but is never restarted for it (a restart cures no outage): liveness checks only that the
    // process still answers, and restarts a hung one after 30 s.
    livenessProbe: probe('/health/live', 10, 3),
    lifecycle: { preStop: { exec: { command: ['sleep', String(PRE_STOP_SECONDS)] } } },
    securityContext: CONTAINER_SECURITY,
    volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
  };
  const deployment = new Deployment({
    metadata,
    spec: {
      // no `replicas`: the HorizontalPodAutoscaler owns the count, and re-applying must not reset it
      revisionHistoryLimit: 5,
      selector: { matchLabels: selector },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: {
          labels,
          // a changed ConfigMap rolls the pods (a changed Secret needs `kubectl rollout restart`)
          annotations: { 'checksum/config': createHash('sha256').update(JSON.stringify(env.config)).digest('hex') },
        },
        spec: {
          automountServiceAccountToken: false,
          securityContext: POD_SECURITY,
          // SIGTERM drains requests for at most SHUTDOWN_TIMEOUT_MS after the pre-stop pause; a margin on top
          terminationGracePeriodSeconds: PRE_STOP_SECONDS + Math.ceil(shutdownMs / 1000) + 5,
          containers: [container],
          volumes: [{ name: 'tmp', emptyDir: { sizeLimit: '64Mi' } }],
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: 'topology.kubernetes.io/zone',
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: selector },
            },
            {
              maxSkew: 1,
              topologyKey: 'kubernetes.io/hostname',
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: selector },
            },
          ],
        },
      },
    },
  });
  const servicePorts: IServicePort[] = [{ name: 'http', port: app.port, targetPort: 'http', protocol: 'TCP' }];
  if (app.internalPort) servicePorts.push({ name: 'internal', port: app.internalPort, targetPort: 'internal', protocol: 'TCP' });
  const service = new Service({ metadata, spec: { type: 'ClusterIP', selector, ports: servicePorts } });
  const pdb = new PodDisruptionBudget({ metadata, spec: { maxUnavailable: 1, selector: { matchLabels: selector } } });
  const hpa = new HorizontalPodAutoscaler({
    metadata,
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: app.name },
      minReplicas: size.minReplicas,
      maxReplicas: size.maxReplicas,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: size.cpuTarget } } }],
      // scale up at once on a salary-day burst, down slowly
      behavior: { scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } },
    },
  });
  return { configMap, deployment, service, pdb, hpa };
}
