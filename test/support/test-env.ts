import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { SERVICES, type ServiceName, serviceDatabaseUrl } from '@mm/contracts';
import { serviceCredentialEnv } from '@mm/platform';
import { withDatabase } from '../../tools/db';
import { TEST_SERVICE_KEYS } from './service-keys';
import { TEST_ADMIN_URL, TEST_DB_PREFIX, TEST_REDIS_NAMESPACE, TEST_REDIS_URL, deleteRedisKeys, templateDb } from './infra';

export interface TestDatabase {
  name: string;
  /** superuser connection to this test database */
  adminUrl: string;
  /** the URL a service uses: its own role, this database */
  urlFor(service: ServiceName): string;
  drop(): Promise<void>;
}

async function adminQuery(sql: string): Promise<void> {
  const client = new Client({ connectionString: withDatabase(TEST_ADMIN_URL, 'postgres') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh, migrated database for one test file (a copy of the template). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `${TEST_DB_PREFIX}${process.pid}_${randomBytes(4).toString('hex')}`;
  // Clones of one template may not run concurrently on every PostgreSQL version: retry briefly.
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(`CREATE DATABASE "${name}" TEMPLATE "${templateDb()}"`);
      break;
    } catch (error) {
      if (attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
  const adminUrl = withDatabase(TEST_ADMIN_URL, name);
  return {
    name,
    adminUrl,
    urlFor: (service) => serviceDatabaseUrl(adminUrl, service),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

/** A Redis namespace of one test file; `flush` removes every key under it. */
export function createTestRedis(): { url: string; prefix: string; flush(): Promise<void> } {
  const prefix = `${TEST_REDIS_NAMESPACE}:${process.pid}-${randomUUID().slice(0, 8)}`;
  return {
    url: TEST_REDIS_URL,
    prefix,
    flush: () => deleteRedisKeys(`${prefix}:*`),
  };
}

/** Secrets a service refuses to boot without outside development, generated per test run. */
const SERVICE_SECRETS: Partial<Record<ServiceName, Record<string, string>>> = {
  'webhook-dispatcher': { WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
  partners: { PARTNERS_PSEUDONYM_SECRET: randomBytes(32).toString('hex') },
};

/** The environment a service gets in a test: its own role on the file's database, the file's Redis namespace. */
export function serviceEnv(
  service: ServiceName,
  db: TestDatabase,
  redis: { url: string; prefix: string },
  overrides: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: db.urlFor(service),
    DB_POOL_SIZE: '4',
    // Four files at once share one server of 100 connections, each booting up to five apps (a whole
    // platform can open about 40 at its busiest): a test app lets an unused connection go after 2 s,
    // rather than the five minutes of a deployment, so a burst's connections do not outlive it. With
    // 10 s, a 4-worker run was seen at 79 connections.
    DB_POOL_IDLE_MS: '2000',
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix,
    ...serviceCredentialEnv(service, TEST_SERVICE_KEYS),
    ...SERVICE_SECRETS[service],
    ...overrides,
  };
}

export { SERVICES };
export { TEST_SERVICE_KEYS, allowedCaller, allowedCallerKey, callerKey } from './service-keys';
