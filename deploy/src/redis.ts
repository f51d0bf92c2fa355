import { StatefulSet } from 'kubernetes-models/apps/v1';
import { Service } from 'kubernetes-models/v1';
import type { Values } from '../values';
import { LABEL_NAME, labelsOf, secretNameOf } from './apps';
import { REDIS_PORT } from './network';

/**
 * One Redis with its data on a volume. AOF (fsync every second): queued webhooks and ledger events
 * survive a restart; noeviction, which BullMQ requires (an evicted job key is a lost job). The password
 * is read from the Secret inside the container and handed to redis-server on its standard input, so it
 * is never on a command line (`ps` shows command lines). Not replicated: a node loss means Redis is
 * down until its volume is attached elsewhere; the apps report it in /health and retry (README).
 */
export function redisObjects(values: Values) {
  const labels = labelsOf('redis', 'queue');
  const selector = { [LABEL_NAME]: 'redis' };
  const metadata = { name: 'redis', namespace: values.namespace, labels };
  const password = { secretKeyRef: { name: secretNameOf('redis'), key: 'REDIS_PASSWORD' } };
  const probe = (periodSeconds: number, failureThreshold: number) => ({
    exec: { command: ['redis-cli', 'ping'] },
    periodSeconds,
    timeoutSeconds: 3,
    failureThreshold,
  });
  const script = [
    'exec redis-server - <<EOF',
    'requirepass $REDIS_PASSWORD',
    'appendonly yes',
    'appendfsync everysec',
    'maxmemory-policy noeviction',
    `maxmemory ${values.redis.maxmemory}`,
    'dir /data',
    'EOF',
  ].join('\n');
  const statefulSet = new StatefulSet({
    metadata,
    spec: {
      serviceName: 'redis',
      replicas: 1,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels },
        spec: {
          automountServiceAccountToken: false,
          // the image's redis user
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 999,
            runAsGroup: 999,
            fsGroup: 999,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          terminationGracePeriodSeconds: 30,
          containers: [
            {
              name: 'redis',
              image: values.redis.image,
              command: ['sh', '-c', script],
              ports: [{ name: 'redis', containerPort: REDIS_PORT, protocol: 'TCP' }],
              env: [
                { name: 'REDIS_PASSWORD', valueFrom: password },
                // redis-cli (the probes) reads its password here
                { name: 'REDISCLI_AUTH', valueFrom: password },
              ],
              resources: values.redis.resources,
              readinessProbe: probe(5, 3),
              livenessProbe: probe(15, 4),
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              volumeMounts: [{ name: 'data', mountPath: '/data' }],
            },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'data', labels },
          spec: {
            accessModes: ['ReadWriteOnce'],
            ...(values.redis.storage.storageClass ? { storageClassName: values.redis.storage.storageClass } : {}),
            resources: { requests: { storage: values.redis.storage.size } },
          },
        },
      ],
    },
  });
  const service = new Service({
    metadata,
    spec: { type: 'ClusterIP', selector, ports: [{ name: 'redis', port: REDIS_PORT, targetPort: 'redis', protocol: 'TCP' }] },
  });
  return { statefulSet, service };
}
