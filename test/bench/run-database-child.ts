import { spawn } from 'node:child_process';
import { Client } from 'pg';
import { stopWithRun } from '../../bench/lib/run-children';
import { withRunDatabase } from '../../bench/lib/run-database';

/**
 * A bench in miniature for run-database.test.ts: it runs on its own database through
 * `withRunDatabase`, holds a connection to it, starts a stand-in service (a process of its own,
 * marked with `stopWithRun`), prints the database's name and the service's pid, and works until it
 * is stopped by a signal.
 */
const serverAdminUrl = process.argv[2];

void withRunDatabase(serverAdminUrl, 'sigtest', async (db) => {
  const client = new Client({ connectionString: db.adminUrl });
  client.on('error', () => undefined);
  await client.connect();
  const service = stopWithRun(spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }));
  process.stdout.write(`${db.name} ${service.pid}\n`);
  await new Promise<void>(() => setInterval(() => undefined, 1_000));
});
