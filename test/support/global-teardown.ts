import { Client } from 'pg';
import { withDatabase } from '../../tools/db';
import { TEST_ADMIN_URL } from './infra';

/** Drops this run's template (each file already dropped its own copy). */
export default async function globalTeardown(): Promise<void> {
  const template = process.env.MM_TEST_TEMPLATE_DB;
  if (!template) return;
  const admin = new Client({ connectionString: withDatabase(TEST_ADMIN_URL, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
