import { Job } from 'kubernetes-models/batch/v1';
import type { Values } from '../values';
import { labelsOf } from './apps';
import { CONTAINER_SECURITY, POD_SECURITY, secretEnv } from './workloads';

/**
 * `node dist/tools/migrate.js` with the admin credentials, as compose's `migrate` service: it creates
 * the database objects and the five service roles with their passwords, then runs every service's
 * migrations. Idempotent, so re-running it on every release is safe. It is applied on its own, before
 * the apps (deploy/README.md: `kubectl apply -k deploy/kubernetes/migrate` then `kubectl wait
 * --for=condition=complete`), and the apps are rolled only once it has completed.
 *
 * A Job's pod template cannot be changed once created: a release deletes the previous Job first
 * (`kubectl delete job migrate --ignore-not-found`); finished Jobs are removed after a day anyway.
 */
export function migrateJob(values: Values, secretKeys: string[]): Job {
  const labels = labelsOf('migrate', 'migration');
  return new Job({
    metadata: { name: 'migrate', namespace: values.namespace, labels },
    spec: {
      backoffLimit: 3,
      activeDeadlineSeconds: 1800,
      ttlSecondsAfterFinished: 86400,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          securityContext: POD_SECURITY,
          containers: [
            {
              name: 'migrate',
              image: values.image,
              imagePullPolicy: values.imagePullPolicy,
              command: ['node', 'dist/tools/migrate.js'],
              // NODE_ENV=production comes from the image (Dockerfile)
              env: secretEnv('migrate', secretKeys),
              resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '512Mi' } },
              securityContext: CONTAINER_SECURITY,
              volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
            },
          ],
          volumes: [{ name: 'tmp', emptyDir: { sizeLimit: '64Mi' } }],
        },
      },
    },
  });
}
