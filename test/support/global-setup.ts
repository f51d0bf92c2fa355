import { Client } from 'pg';
import { Redis } from 'ioredis';
import { migrateAll, withDatabase } from '../../tools/db';
import { TEMPLATE_DB, TEST_ADMIN_URL, TEST_DB_PREFIX, TEST_REDIS_NAMESPACE, TEST_REDIS_URL } from './infra';

/**
 * Runs once per `npm test`: drops what an earlier run left (databases, Redis keys), then migrates
 * a template database that every test file clones (CREATE DATABASE … TEMPLATE) into its own copy.
 */
export default async function globalSetup(): Promise<void> {
  const admin = new Client({ connectionString: withDatabase(TEST_ADMIN_URL, 'postgres') });
  await admin.connect();
  try {
    const stale = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`,
      [`${TEST_DB_PREFIX}%`, TEMPLATE_DB],
    );
    for (const { datname } of stale.rows) {
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
  await migrateAll(withDatabase(TEST_ADMIN_URL, TEMPLATE_DB));

  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${TEST_REDIS_NAMESPACE}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
