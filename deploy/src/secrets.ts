import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { Secret } from 'kubernetes-models/v1';
import { SERVICES } from '../../libs/contracts/src/services';
import type { Values } from '../values';
import { APPS, type AppName, PART_OF, secretNameOf } from './apps';
import { POSTGRES_PORT, REDIS_PORT } from './network';

/**
 * The Secrets of deploy/values.ts with fresh random values, consistent with each other: the password
 * in an app's DATABASE_URL is the one the migration Job gives its role, every app trusts the digests
 * of the other apps' keys, the apps' REDIS_URL carries Redis's password. Values nobody can invent
 * (the SMS provider's token, alert webhooks, object-storage keys, a bootstrap admin, the digest of the
 * operators' own `ops` key) are read from the environment under the same names, empty when unset.
 */
export type Input = Record<string, string | undefined>;

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export function generateSecrets(values: Values, input: Input = {}): Secret[] {
  const given = (name: string): string => input[name] ?? '';
  const pg = values.postgres;
  const superuserPassword = hex(24);
  const redisPassword = hex(24);
  const rolePasswords = Object.fromEntries(APPS.map((a) => [a.name, hex(24)])) as Record<AppName, string>;
  const serviceKeys = Object.fromEntries(APPS.map((a) => [a.name, hex(32)])) as Record<AppName, string>;
  const opsDigest = given('OPS_SERVICE_KEY_SHA256');
  const trustedBy = (app: AppName): string =>
    [
      ...APPS.filter((a) => a.name !== app).map((a) => `${a.name}:${sha256(serviceKeys[a.name])}`),
      ...(opsDigest ? [`ops:${opsDigest}`] : []),
    ].join(',');
  const databaseUrl = (role: string, password: string, host: string): string =>
    `postgres://${role}:${password}@${host}:${POSTGRES_PORT}/${pg.database}`;
  const redisUrl = `redis://:${redisPassword}@redis:${REDIS_PORT}`;
  const appCommon = (app: AppName): Record<string, string> => ({
    DATABASE_URL: databaseUrl(SERVICES[app].role, rolePasswords[app], pg.poolerName),
    REDIS_URL: redisUrl,
    INTERNAL_SERVICE_KEY: serviceKeys[app],
    INTERNAL_TRUSTED_CALLERS: trustedBy(app),
  });
  const jwtKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  const data: Record<keyof Values['secrets'], Record<string, string>> = {
    orchestrator: { ...appCommon('orchestrator'), STAFF_AUDIT_ANCHOR_KEY: hex(32) },
    auth: { ...appCommon('auth'), PIN_PEPPER: hex(32), OTP_HMAC_KEY: hex(32), JWT_PRIVATE_KEY: jwtKey, TOTP_ENCRYPTION_KEY: hex(32) },
    partners: { ...appCommon('partners'), PARTNERS_PSEUDONYM_SECRET: hex(32) },
    'ledger-wallets': { ...appCommon('ledger-wallets'), LEDGER_CHAIN_ANCHOR_KEY: hex(32) },
    'webhook-dispatcher': { ...appCommon('webhook-dispatcher'), WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
    migrate: {
      // straight to the primary (the cluster's read-write service), not through the pooler
      DATABASE_URL: databaseUrl('postgres', superuserPassword, `${pg.clusterName}-rw`),
      ...Object.fromEntries(APPS.map((a) => [`${SERVICES[a.name].role.toUpperCase()}_PASSWORD`, rolePasswords[a.name]])),
    },
    redis: { REDIS_PASSWORD: redisPassword },
    'postgres-superuser': { username: 'postgres', password: superuserPassword },
    'postgres-backup': {},
  };

  return (Object.keys(values.secrets) as (keyof Values['secrets'])[]).map((owner) => {
    const stringData: Record<string, string> = {};
    for (const key of values.secrets[owner]) stringData[key] = data[owner][key] ?? given(key);
    return new Secret({
      metadata: { name: secretNameOf(owner), namespace: values.namespace, labels: { ...PART_OF } },
      type: owner === 'postgres-superuser' ? 'kubernetes.io/basic-auth' : 'Opaque',
      stringData,
    });
  });
}
