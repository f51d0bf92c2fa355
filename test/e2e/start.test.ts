/**
 * `npm start` end to end: the built start command brings up all five apps (beside anything already
 * running: its own port base, database and Redis namespace), and SIGINT stops every process it
 * started. Needs `dist/` (the test command builds before Jest runs).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { SERVICES, SERVICE_NAMES, type ServiceName } from '@mm/contracts';
import { withDatabase } from '../../tools/db';
import { TEST_ADMIN_URL, TEST_DB_PREFIX } from '../support/infra';
import { createTestRedis } from '../support/test-env';

const ROOT = join(__dirname, '..', '..');
const START = join(ROOT, 'dist', 'tools', 'start.js');
const READY_TIMEOUT_MS = 60_000;

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: '0.0.0.0', port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Five consecutive free ports away from the usual ones and below Linux's ephemeral range (32768+),
 * so no port-0 listener or outgoing connection of a parallel test takes one before the apps bind.
 */
async function freePortBase(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    let free = true;
    for (let i = 0; i < SERVICE_NAMES.length && free; i++) free = await canListen(base + i);
    if (free) return base;
  }
  throw new Error('no free port range found');
}

/** pid → parent pid of every process, from /proc. */
function processTable(): Map<number, number> {
  const table = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid …": comm may hold spaces, so read after the last ')'.
      table.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited while we were reading
    }
  }
  return table;
}

function descendants(root: number): number[] {
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
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> } | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } catch {
    return undefined;
  }
}

async function dropDatabase(name: string): Promise<void> {
  const admin = new Client({ connectionString: withDatabase(TEST_ADMIN_URL, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

describe('npm start (dist/tools/start.js)', () => {
  // mm_t_<pid>_…: the global setup of a later run drops it if this run dies before afterAll.
  const dbName = `${TEST_DB_PREFIX}${process.pid}_start_${randomBytes(4).toString('hex')}`;
  const redis = createTestRedis();
  let base: number;
  let start: ChildProcess;
  let output = '';
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  let pidsBeforeStop: number[] = [];

  const portOf = (service: ServiceName) => base + SERVICES[service].port - SERVICES.orchestrator.port;

  beforeAll(async () => {
    expect(existsSync(START)).toBe(true);
    base = await freePortBase();
    start = spawn(process.execPath, [START], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        DATABASE_URL: withDatabase(TEST_ADMIN_URL, dbName),
        REDIS_URL: redis.url,
        REDIS_PREFIX: redis.prefix,
        MM_PORT_BASE: String(base),
        // as a developer runs it (Jest's NODE_ENV=test would make apps demand production-grade secrets)
        NODE_ENV: 'development',
        LOG_LEVEL: 'info',
        LOG_PRETTY: 'false',
        DB_POOL_SIZE: '2',
        INTERNAL_SERVICE_KEY: '',
      },
    });
    // Keep the pipes drained (a full pipe would block the children) and the tail for diagnosis.
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-200_000);
    };
    start.stdout!.on('data', collect);
    start.stderr!.on('data', collect);
    exited = new Promise((resolve) => start.once('exit', (code, signal) => resolve({ code, signal })));
  });

  afterAll(async () => {
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
  });

  it('brings every service up: /api/health reports all five, each app answers /health', async () => {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    let health: Awaited<ReturnType<typeof getJson>>;
    for (;;) {
      health = await getJson(`http://127.0.0.1:${base}/api/health`);
      if (health?.status === 200) break;
      if (start.exitCode !== null || Date.now() > deadline) throw new Error(`platform not up; start output:\n${output.slice(-5_000)}`);
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(health.body.status).toBe('ok');
    const info = health.body.info as Record<string, { status: string }>;
    for (const service of SERVICE_NAMES) expect(info[service]).toMatchObject({ status: 'up' });

    for (const service of SERVICE_NAMES) {
      const own = await getJson(`http://127.0.0.1:${portOf(service)}/health`);
      expect(own).toMatchObject({ status: 200, body: { status: 'ok', info: { database: { status: 'up' }, redis: { status: 'up' } } } });
    }
    // Each app's lines carry its name as a prefix.
    for (const service of SERVICE_NAMES) expect(output).toMatch(new RegExp(`^\\[${service}\\] +\\{`, 'm'));
    expect(output).toContain('[start]');
  }, 70_000);

  it('SIGINT stops every app and leaves no process behind', async () => {
    pidsBeforeStop = descendants(start.pid!);
    // the five apps at least (their own children, if any, are counted too)
    expect(pidsBeforeStop.length).toBeGreaterThanOrEqual(SERVICE_NAMES.length);

    start.kill('SIGINT');
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([exited, new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), 25_000)))]);
    clearTimeout(timer);
    expect(result).toEqual({ code: 0, signal: null });
    expect(pidsBeforeStop.filter(isRunning)).toEqual([]);
    expect(output).toMatch(/\[start\] +stopped/);
    for (const service of SERVICE_NAMES) expect(await canListen(portOf(service))).toBe(true);
  }, 30_000);
});
