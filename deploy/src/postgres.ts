import type { Values } from '../values';
import { PART_OF, secretNameOf } from './apps';

/** A CloudNativePG (or Barman Cloud plugin) object: no typed model exists, the test checks it against the CRD schemas. */
export interface CustomObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  spec: Record<string, unknown>;
}

export const BARMAN_PLUGIN = 'barman-cloud.cloudnative-pg.io';

function objectStore(values: Values, name: string): CustomObject {
  const { backup } = values.postgres;
  const secret = secretNameOf('postgres-backup');
  return {
    apiVersion: 'barmancloud.cnpg.io/v1',
    kind: 'ObjectStore',
    metadata: { name, namespace: values.namespace, labels: { ...PART_OF } },
    spec: {
      retentionPolicy: backup.retentionPolicy,
      configuration: {
        destinationPath: backup.destinationPath,
        ...(backup.endpointURL ? { endpointURL: backup.endpointURL } : {}),
        s3Credentials: {
          accessKeyId: { name: secret, key: 'ACCESS_KEY_ID' },
          secretAccessKey: { name: secret, key: 'ACCESS_SECRET_KEY' },
        },
        wal: { compression: 'gzip', maxParallel: 4 },
        data: { compression: 'gzip' },
      },
    },
  };
}

function clusterSpec(values: Values): Record<string, unknown> {
  const pg = values.postgres;
  const storageClass = pg.storage.storageClass ? { storageClass: pg.storage.storageClass } : {};
  return {
    instances: pg.instances,
    imageName: pg.imageName,
    // The operator moves the primary itself during an upgrade (switchover first, then the old primary).
    primaryUpdateStrategy: 'unsupervised',
    postgresql: {
      parameters: { max_connections: String(pg.maxConnections), shared_buffers: '2GB' },
      // A commit returns once one standby has it too: the loss of the primary's node loses no
      // acknowledged payment. `required`: with no standby in sync, writes wait rather than go unprotected.
      synchronous: { method: 'any', number: 1, dataDurability: 'required' },
    },
    // The migration Job connects as the superuser (it creates the service roles); the apps never do.
    enableSuperuserAccess: true,
    superuserSecret: { name: secretNameOf('postgres-superuser') },
    storage: { size: pg.storage.size, ...storageClass },
    walStorage: { size: pg.storage.walSize, ...storageClass },
    resources: pg.resources,
    // one instance per node (and so per zone where the nodes span zones)
    affinity: { enablePodAntiAffinity: true, topologyKey: 'kubernetes.io/hostname', podAntiAffinityType: 'required' },
  };
}

export function postgresObjects(values: Values): CustomObject[] {
  const pg = values.postgres;
  const meta = (name: string) => ({ name, namespace: values.namespace, labels: { ...PART_OF } });
  const storeName = `${pg.clusterName}-backups`;
  return [
    objectStore(values, storeName),
    {
      apiVersion: 'postgresql.cnpg.io/v1',
      kind: 'Cluster',
      metadata: meta(pg.clusterName),
      spec: {
        ...clusterSpec(values),
        bootstrap: { initdb: { database: pg.database, owner: 'mm_admin' } },
        // continuous WAL archiving to the object store: what point-in-time recovery replays
        plugins: [{ name: BARMAN_PLUGIN, isWALArchiver: true, parameters: { barmanObjectName: storeName } }],
      },
    },
    {
      apiVersion: 'postgresql.cnpg.io/v1',
      kind: 'Pooler',
      metadata: meta(pg.poolerName),
      spec: {
        cluster: { name: pg.clusterName },
        instances: pg.pooler.instances,
        type: 'rw',
        pgbouncer: {
          // Session mode: the apps hold session state across statements (advisory locks taken with
          // pg_advisory_lock and released later, the ledger's lock sessions), which transaction mode would
          // hand to another client between two statements.
          poolMode: 'session',
          parameters: {
            max_client_conn: String(pg.pooler.maxClientConn),
            default_pool_size: String(pg.pooler.defaultPoolSize),
            max_db_connections: String(pg.pooler.maxDbConnections),
            // No ignore_startup_parameters: the apps send only application_name at start-up (PgBouncer
            // tracks it); anything else would be dropped silently, so it is SET after connecting instead.
            // A replica that vanishes (node lost) must lose its job leases (session advisory locks) within
            // a period: PgBouncer then closes the client and resets the server session (DISCARD ALL), which
            // releases them. Probe silent clients after 10 s idle, every 5 s, 3 times: about 25 s.
            tcp_keepalive: '1',
            tcp_keepidle: '10',
            tcp_keepintvl: '5',
            tcp_keepcnt: '3',
          },
        },
      },
    },
    {
      apiVersion: 'postgresql.cnpg.io/v1',
      kind: 'ScheduledBackup',
      metadata: meta(`${pg.clusterName}-daily`),
      spec: {
        schedule: pg.backup.schedule,
        cluster: { name: pg.clusterName },
        method: 'plugin',
        pluginConfiguration: { name: BARMAN_PLUGIN },
        backupOwnerReference: 'self',
        immediate: true,
      },
    },
  ];
}

/**
 * Point-in-time recovery, as an example to copy (never applied by the kustomization): a new cluster
 * bootstrapped from the base backups and WAL of the old one, replayed up to `targetTime`. It archives
 * its own WAL to another path so it never writes over the history it was restored from.
 */
export function recoveryExample(values: Values, targetTime = '2026-11-28T09:30:00Z'): CustomObject[] {
  const pg = values.postgres;
  const restored = `${pg.clusterName}-restored`;
  const store = objectStore(values, `${restored}-backups`);
  (store.spec.configuration as { destinationPath: string }).destinationPath = `${pg.backup.destinationPath.replace(/\/?$/, '/')}restored/`;
  return [
    store,
    {
      apiVersion: 'postgresql.cnpg.io/v1',
      kind: 'Cluster',
      metadata: { name: restored, namespace: values.namespace, labels: { ...PART_OF } },
      spec: {
        ...clusterSpec(values),
        bootstrap: { recovery: { source: 'origin', database: pg.database, owner: 'mm_admin', recoveryTarget: { targetTime } } },
        externalClusters: [
          {
            name: 'origin',
            plugin: { name: BARMAN_PLUGIN, parameters: { barmanObjectName: `${pg.clusterName}-backups`, serverName: pg.clusterName } },
          },
        ],
        plugins: [{ name: BARMAN_PLUGIN, isWALArchiver: true, parameters: { barmanObjectName: `${restored}-backups` } }],
      },
    },
  ];
}
