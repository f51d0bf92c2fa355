/**
 * Running the built `npm start` (dist/tools/start.js) from a test: a free port range, the process
 * tree it owns, and clean-up that leaves nothing behind. Shared by start.test.ts and the
 * supervision tests. MM_TEST_DIST points at another build (default: the repository's dist/).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { SERVICES, SERVICE_NAMES, type ServiceName } from '@mm/contracts';
import { withDatabase } from '../../tools/db';
import { TEST_ADMIN_URL, TEST_DB_PREFIX } from '../support/infra';
import { createTestRedis } from '../support/test-env';

/** The longest wait for a started platform to report healthy (a bound for a stuck start, not a speed). */
export const HEALTHY_WITHIN_MS = 180_000;

export const DIST = process.env.MM_TEST_DIST ?? join(__dirname, '..', '..', 'dist');
export const START = join(DIST, 'tools', 'start.js');

export function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: '0.0.0.0', port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Consecutive free ports (the five apps, and the orchestrator's internal listener at base + 100)
 * away from the usual ones and below Linux's ephemeral range (32768+), so no port-0 listener or
 * outgoing connection of a parallel test takes one before the apps bind.
 */
export async function freePortBase(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    let free = await canListen(base + 100);
    for (let i = 0; i < SERVICE_NAMES.length && free; i++) free = await canListen(base + i);
    if (free) return base;
  }
  throw new Error('no free port range found');
}

function stat(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
}

/** pid → parent pid of every process, from /proc. */
function processTable(): Map<number, number> {
  const table = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const line = stat(Number(entry));
    // "pid (comm) state ppid …": comm may hold spaces, so read after the last ')'.
    if (line) table.set(Number(entry), Number(line.slice(line.lastIndexOf(')') + 2).split(' ')[1]));
  }
  return table;
}

export function descendants(root: number): number[] {
  const table = processTable();
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [pid, ppid] of table) {
      if (ppid === parent) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}

/** Running (a zombie, or a pid that is gone, is not). */
export function isRunning(pid: number): boolean {
  const line = stat(pid);
  return line !== undefined && line.slice(line.lastIndexOf(')') + 2)[0] !== 'Z';
}

/** The pid of a service's process under `root` (its command line names its main.js), if running. */
export function servicePid(root: number, service: ServiceName): number | undefined {
  const marker = join('apps', service, 'src', 'main.js');
  return descendants(root).find((pid) => {
    try {
      return isRunning(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
    } catch {
      return false;
    }
  });
}

export async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> } | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } catch {
    return undefined;
  }
}

export async function dropDatabase(name: string): Promise<void> {
  const admin = new Client({ connectionString: withDatabase(TEST_ADMIN_URL, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

export interface StartedPlatform {
  base: number;
  start: ChildProcess;
  /** the tail of everything the command printed */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  portOf(service: ServiceName): number;
  /**
   * polls /api/health until it answers 200 (throws with the output's tail otherwise). The bound is
   * generous on purpose: on a busy machine five apps take long to boot, and the readiness signal,
   * not a timer, decides when a test goes on.
   */
  waitHealthy(timeoutMs?: number): Promise<Record<string, unknown>>;
  /** SIGKILLs whatever is left of the tree, drops the database and the Redis namespace */
  cleanUp(): Promise<void>;
}

/**
 * Runs the built start command on its own port range, database (mm_t_<pid>_…, dropped by a later
 * run's global setup if this one dies) and Redis namespace, as a developer runs it.
 */
export async function runStart(
  label: string,
  env: Record<string, string> = {},
  options: { viaNpm?: boolean; npmParentNeverReaps?: boolean } = {},
): Promise<StartedPlatform> {
  const dbName = `${TEST_DB_PREFIX}${process.pid}_${label}_${randomBytes(4).toString('hex')}`;
  const redis = createTestRedis();
  const portBase = await freePortBase();
  // viaNpm: the command of the README, `npm start` (`start` is then npm's process), on the dist/
  // built before the tests ran (MM_SKIP_BUILD: a rebuild here would replace it under other tests).
  // npmParentNeverReaps: npm runs under a parent that never waits for it (the shell execs `sleep`), so a
  // killed npm stays a zombie and its pid stays taken, as a reused pid would be; `start` is that parent.
  const [command, args] = options.npmParentNeverReaps
    ? ['sh', ['-c', 'npm start & exec sleep 3600']]
    : options.viaNpm
      ? ['npm', ['start']]
      : [process.execPath, [START]];
  const start = spawn(command, args, {
    cwd: join(__dirname, '..', '..'),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      DATABASE_URL: withDatabase(TEST_ADMIN_URL, dbName),
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
      MM_PORT_BASE: String(portBase),
      // as a developer runs it (Jest's NODE_ENV=test would make apps demand production-grade secrets)
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      LOG_PRETTY: 'false',
      DB_POOL_SIZE: '2',
      INTERNAL_SERVICE_KEY: '',
      ...(options.viaNpm || options.npmParentNeverReaps ? { MM_SKIP_BUILD: '1' } : {}),
      ...env,
    },
  });
  let output = '';
  // Keep the pipes drained (a full pipe would block the children) and the tail for diagnosis.
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-200_000);
  };
  start.stdout!.on('data', collect);
  start.stderr!.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    start.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const platform: StartedPlatform = {
    base: portBase,
    start,
    output: () => output,
    exited,
    portOf: (service) => portBase + SERVICES[service].port - SERVICES.orchestrator.port,
    async waitHealthy(timeoutMs = HEALTHY_WITHIN_MS) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const health = await getJson(`http://127.0.0.1:${portBase}/api/health`);
        if (health?.status === 200) return health.body;
        if (start.exitCode !== null || Date.now() > deadline)
          throw new Error(`platform not healthy; start output:\n${output.slice(-5_000)}`);
        await new Promise((r) => setTimeout(r, 300));
      }
    },
    async cleanUp() {
      // Only when an assertion failed half-way: nothing of ours may survive the test.
      if (start.pid !== undefined && isRunning(start.pid)) {
        for (const pid of [...descendants(start.pid), start.pid]) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        await exited;
      }
      await dropDatabase(dbName);
      await redis.flush();
    },
  };
  return platform;
}
