/**
 * The one file an operator edits: image, sizes, autoscaling bounds, addresses, and the list of every
 * credential. `npm run deploy:render` turns it (with docker-compose.yml, which says which variables each
 * app reads) into the YAML under deploy/kubernetes/.
 *
 * Sizes here are a starting point for a small production cluster, not a measurement: docs/scaling.md
 * holds the measured costs and the arithmetic for a given load.
 */
import type { AppName } from './src/apps';

export interface AppValues {
  /** the HPA's floor: the Deployment itself leaves replicas to the HPA */
  minReplicas: number;
  maxReplicas: number;
  /** average CPU utilisation, as a percentage of the request, the HPA aims at */
  cpuTarget: number;
  resources: { requests: { cpu: string; memory: string }; limits: { cpu: string; memory: string } };
}

/**
 * The addresses the ingress controller's pods connect from: the cluster's pod network. The orchestrator
 * believes X-Forwarded-For only from these (TRUSTED_PROXIES), and its NetworkPolicy admits no other pod
 * to its public port. The private ranges fit any cluster; narrow them to the pod CIDR when it is known,
 * since a client that itself has a private address could otherwise name another one.
 */
const ingressControllerAddresses = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10'];

const smallApp: AppValues['resources'] = { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '512Mi' } };

export const values = {
  namespace: 'mobile-money',
  /** the platform's one image (Dockerfile); each app is the same image with another command */
  image: 'registry.example.com/cemac-mobile-money:0.1.0',
  imagePullPolicy: 'IfNotPresent' as 'IfNotPresent' | 'Always' | 'Never',

  apps: {
    orchestrator: {
      minReplicas: 3,
      maxReplicas: 12,
      cpuTarget: 65,
      resources: { requests: { cpu: '500m', memory: '384Mi' }, limits: { cpu: '2', memory: '768Mi' } },
    },
    auth: {
      minReplicas: 2,
      maxReplicas: 8,
      cpuTarget: 65,
      resources: { requests: { cpu: '500m', memory: '256Mi' }, limits: { cpu: '2', memory: '512Mi' } },
    },
    partners: { minReplicas: 2, maxReplicas: 6, cpuTarget: 65, resources: smallApp },
    'ledger-wallets': {
      minReplicas: 2,
      maxReplicas: 8,
      cpuTarget: 65,
      resources: { requests: { cpu: '500m', memory: '384Mi' }, limits: { cpu: '2', memory: '768Mi' } },
    },
    'webhook-dispatcher': { minReplicas: 2, maxReplicas: 6, cpuTarget: 65, resources: smallApp },
  } satisfies Record<AppName, AppValues>,

  /**
   * Non-secret settings that differ from docker-compose.yml's defaults, per app. Everything else an app
   * reads comes with compose's own default. Compose's required non-secret values must be set here.
   */
  config: {
    all: {},
    auth: { SMS_PROVIDER_URL: 'https://sms.example.com/v1/messages' },
    orchestrator: {
      SMS_PROVIDER_URL: 'https://sms.example.com/v1/messages',
      // behind the Ingress every connection comes from the controller: the client is the address it appended
      TRUSTED_PROXIES: ingressControllerAddresses.join(','),
    },
    partners: {},
    'ledger-wallets': {},
    'webhook-dispatcher': {},
  } satisfies Record<AppName | 'all', Record<string, string>>,

  /**
   * Every credential, in one place: the Secret each app reads (named `<app>-secrets`) and its keys. The
   * values never live in the repository: deploy/generate-secrets.ts creates them (random, consistent
   * across Secrets: the password in an app's DATABASE_URL is the one the migration sets), or an operator
   * fills the same names from a secret store. The keys are the app's environment variable names; URLs
   * that carry a password or are themselves a credential (alert webhooks) count as credentials.
   */
  secrets: {
    orchestrator: [
      'DATABASE_URL',
      'REDIS_URL',
      'INTERNAL_SERVICE_KEY',
      'INTERNAL_TRUSTED_CALLERS',
      'SMS_PROVIDER_TOKEN',
      'STAFF_AUDIT_ANCHOR_KEY',
      // alert webhooks (a chat incoming-webhook URL is itself the credential)
      'OPS_ALERT_URL',
      'COMPLIANCE_ALERT_URL',
    ],
    auth: [
      'DATABASE_URL',
      'REDIS_URL',
      'INTERNAL_SERVICE_KEY',
      'INTERNAL_TRUSTED_CALLERS',
      'PIN_PEPPER',
      'OTP_HMAC_KEY',
      'JWT_PRIVATE_KEY',
      'TOTP_ENCRYPTION_KEY',
      'SMS_PROVIDER_TOKEN',
      'BOOTSTRAP_ADMIN_PHONE',
      'BOOTSTRAP_ADMIN_PIN',
      'BOOTSTRAP_ADMIN_TOTP_SECRET',
    ],
    partners: ['DATABASE_URL', 'REDIS_URL', 'INTERNAL_SERVICE_KEY', 'INTERNAL_TRUSTED_CALLERS', 'PARTNERS_PSEUDONYM_SECRET'],
    'ledger-wallets': [
      'DATABASE_URL',
      'REDIS_URL',
      'INTERNAL_SERVICE_KEY',
      'INTERNAL_TRUSTED_CALLERS',
      'LEDGER_CHAIN_ANCHOR_KEY',
      'LEDGER_CHAIN_ANCHOR_RETIRED_KEYS',
      'LEDGER_INTEGRITY_ALERT_URL',
      'LEDGER_COMPLIANCE_ALERT_URL',
    ],
    'webhook-dispatcher': [
      'DATABASE_URL',
      'REDIS_URL',
      'INTERNAL_SERVICE_KEY',
      'INTERNAL_TRUSTED_CALLERS',
      'WEBHOOK_SECRET_ENCRYPTION_KEY',
      'WEBHOOK_DEDUP_REDIS_URL',
    ],
    /** the migration Job: the admin URL and the five service roles' passwords it sets */
    migrate: [
      'DATABASE_URL',
      'SVC_ORCHESTRATOR_PASSWORD',
      'SVC_AUTH_PASSWORD',
      'SVC_PARTNERS_PASSWORD',
      'SVC_LEDGER_PASSWORD',
      'SVC_WEBHOOKS_PASSWORD',
    ],
    /** Redis's own password (the apps hold it inside their REDIS_URL) */
    redis: ['REDIS_PASSWORD'],
    /** CloudNativePG's superuser (type kubernetes.io/basic-auth: username postgres, password) */
    'postgres-superuser': ['username', 'password'],
    /** object storage of the backups and the WAL archive */
    'postgres-backup': ['ACCESS_KEY_ID', 'ACCESS_SECRET_KEY'],
  } satisfies Record<AppName | 'migrate' | 'redis' | 'postgres-superuser' | 'postgres-backup', string[]>,

  /** the public entry point: an Ingress in front of the orchestrator's public port */
  ingress: {
    host: 'api.example.com',
    className: 'nginx',
    /** a TLS certificate Secret (cert-manager or the operator creates it) */
    tlsSecretName: 'api-example-com-tls',
    /** where the ingress controller's pods run: the only place the orchestrator accepts traffic from */
    controllerNamespace: 'ingress-nginx',
  },

  network: {
    /** CloudNativePG's operator namespace: it calls the instances' status port */
    cnpgOperatorNamespace: 'cnpg-system',
    /**
     * The Kubernetes API server, which CloudNativePG's instance and pooler managers talk to. A pod
     * selector cannot name it: set its address (kubectl get endpoints kubernetes -n default).
     */
    apiServer: { cidr: '10.0.0.1/32', ports: [443, 6443] },
    /** "the outside" for the apps compose puts on `egress`: any address but the private and link-local ones */
    publicExcept: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16'],
  },

  postgres: {
    clusterName: 'mm-postgres',
    poolerName: 'mm-postgres-pooler',
    database: 'mobile_money',
    instances: 3,
    /** PostgreSQL major version image (CloudNativePG's standard images) */
    imageName: 'ghcr.io/cloudnative-pg/postgresql:17.6-standard-bookworm',
    storage: { size: '100Gi', walSize: '20Gi', storageClass: '' },
    resources: { requests: { cpu: '2', memory: '8Gi' }, limits: { cpu: '4', memory: '8Gi' } },
    maxConnections: 600,
    /**
     * Server connections: each pooler pod opens at most maxDbConnections (all apps together), and the
     * pods together stay under maxConnections. The test checks that every app at its maxReplicas fits.
     */
    pooler: { instances: 2, maxClientConn: 1000, defaultPoolSize: 120, maxDbConnections: 280 },
    backup: {
      /** barman-cloud destination; WAL is archived continuously here too */
      destinationPath: 's3://mm-postgres-backups/',
      /** empty: the provider's default endpoint (AWS S3); set it for MinIO or another S3 service */
      endpointURL: '',
      retentionPolicy: '30d',
      /** six fields, seconds first (CloudNativePG's cron): daily at 01:00 UTC */
      schedule: '0 0 1 * * *',
      /** where the object storage is: HTTPS to any public address by default (set a CIDR for storage inside the cluster's network) */
      egressCidr: '0.0.0.0/0',
    },
  },

  redis: {
    image: 'redis:7.4-alpine',
    storage: { size: '20Gi', storageClass: '' },
    resources: { requests: { cpu: '500m', memory: '2Gi' }, limits: { cpu: '1', memory: '2Gi' } },
    /** below the memory limit, so Redis refuses writes (noeviction) before the kernel kills it */
    maxmemory: '1536mb',
  },
};

export type Values = typeof values;
