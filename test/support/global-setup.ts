import { Client } from 'pg';
import { migrateAll, withDatabase } from '../../tools/db';
import { TEST_ADMIN_URL, TEST_REDIS_NAMESPACE, deleteRedisKeys, isStaleRedisKey, isStaleTestDatabase, newTemplateName } from './infra';

/**
 * Runs once per `npm test`: drops what dead earlier runs left (databases, Redis keys), then migrates
 * this run's template database, which every test file clones (CREATE DATABASE … TEMPLATE).
 */
export default async function globalSetup(): Promise<void> {
  const admin = new Client({ connectionString: withDatabase(TEST_ADMIN_URL, 'postgres') });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname ~ '^mm_(t|tpl)_'`);
    for (const { datname } of rows.filter((r) => isStaleTestDatabase(r.datname))) {
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
  const template = newTemplateName();
  await migrateAll(withDatabase(TEST_ADMIN_URL, template));
  // Workers are forked after the global setup: they inherit this.
  process.env.MM_TEST_TEMPLATE_DB = template;

  await deleteRedisKeys(`${TEST_REDIS_NAMESPACE}:*`, isStaleRedisKey);
}
