import { Client } from 'pg';
import { withDatabase } from '../../tools/db';

/**
 * One statement run on the server's `postgres` database, never on the bench's own: the benches use
 * it to drop and create their databases, and a session cannot drop the database it is connected to.
 */
export async function serverSql(adminUrl: string, sql: string): Promise<void> {
  const c = new Client({ connectionString: withDatabase(adminUrl, 'postgres') });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}
