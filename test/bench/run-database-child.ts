import { Client } from 'pg';
import { withRunDatabase } from '../../bench/lib/run-database';

/**
 * A bench in miniature for run-database.test.ts: it runs on its own database through
 * `withRunDatabase`, holds a connection to it as a bench's services do, prints the database's name
 * and works until it is stopped by a signal.
 */
const serverAdminUrl = process.argv[2];

void withRunDatabase(serverAdminUrl, 'sigtest', async (db) => {
  const client = new Client({ connectionString: db.adminUrl });
  client.on('error', () => undefined);
  await client.connect();
  process.stdout.write(`${db.name}\n`);
  await new Promise<void>(() => setInterval(() => undefined, 1_000));
});
