import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';

/**
 * B2, the HTTP floor of a confirm: `http-floor-server.ts` as its own process, on the ledger's
 * database and role, answering W1's requests with the service's statement and nothing else.
 * Resolves once it listens; a server that never did is killed rather than left behind.
 */
export async function startHttpFloor(databaseUrl: string, port: number): Promise<ChildProcess> {
  const child = fork(join(__dirname, 'http-floor-server.js'), [], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the HTTP floor server did not start'));
    }, 30_000);
    child.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the HTTP floor server exited with ${code}`));
    });
  });
  return child;
}

/** Stops it and waits for the process to be gone (its pool's connections closed with it). */
export async function stopHttpFloor(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
