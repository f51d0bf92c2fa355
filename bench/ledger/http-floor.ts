import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';

/**
 * B2, the HTTP floor of a confirm: `http-floor-server.ts` as its own process, on the ledger's
 * database and role, answering W1's requests with the service's statement and nothing else.
 * Resolves once it listens; a server that never did is killed rather than left behind.
 */
export async function startHttpFloor(databaseUrl: string): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(join(__dirname, 'http-floor-server.js'), [], {
    env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // The server listens on a port the system picks and sends it back.
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the HTTP floor server did not start'));
    }, 30_000);
    child.once('message', (message: { port: number }) => {
      clearTimeout(timer);
      resolve(message.port);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the HTTP floor server exited with ${code}`));
    });
  });
  return { child, port };
}
