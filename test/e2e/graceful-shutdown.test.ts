import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { callerKey, createTestRedis } from '../support/test-env';
import { freePort } from '../support/free-port';

const FIXTURE = join(__dirname, '../../dist/test/fixtures/slow-app.js');

async function waitForHealth(url: string, timeoutMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`app did not become healthy: ${output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('graceful shutdown on SIGTERM (a built app in its own process)', () => {
  const redis = createTestRedis();
  let child: ChildProcess;
  let output = '';
  let url: string;
  let exited: Promise<number | null>;

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [FIXTURE], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        INTERNAL_SERVICE_KEY: callerKey('orchestrator'),
        REDIS_PREFIX: redis.prefix,
        LOG_LEVEL: 'info',
        LOG_PRETTY: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    await waitForHealth(url, 15_000, () => output);
  });
  afterAll(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await redis.flush();
  });

  it('finishes the in-flight request, refuses new work, closes its resources and exits 0', async () => {
    const inFlight = fetch(`${url}/slow?ms=1500`).then(async (r) => ({ status: r.status, body: await r.json() }));
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));

    // While draining: the listener is closed, a new connection is refused.
    await expect(fetch(`${url}/health`)).rejects.toThrow();

    await expect(inFlight).resolves.toEqual({ status: 200, body: { done: true } });
    const code = await exited;
    if (code !== 0) throw new Error(`exit ${code}: ${output.slice(-3000)}`);
    const lines = output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string });
    const messages = lines.map((l) => l.msg);
    expect(messages).toEqual(expect.arrayContaining(['slow-fixture shutting down', 'slow-fixture stopped']));
    // The in-flight request was logged as completed before the process stopped: a line that is
    // missing fails too (indexOf's -1 would pass a bare less-than), and a failure shows the output.
    // Under load this once failed with the line written after "stopped" (pino's asynchronous
    // stream, overtaken by its flush at exit; logger.ts now writes synchronously).
    const requestAt = messages.indexOf('request');
    const stoppedAt = messages.indexOf('slow-fixture stopped');
    if (requestAt < 0 || requestAt > stoppedAt) {
      throw new Error(`request line at ${requestAt}, "stopped" at ${stoppedAt}:\n${output.slice(-4000)}`);
    }
  });
});
