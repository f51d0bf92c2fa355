/**
 * `npm start`: the whole platform on one machine, in one terminal.
 *
 * 1. Finds PostgreSQL (DATABASE_URL, an admin URL; default local) and Redis (REDIS_URL; default local).
 *    When nothing answers on a loopback URL it runs its own: an embedded PostgreSQL with its data in
 *    `.data/postgres`, a `redis-server` without persistence.
 * 2. Migrates (database, roles, schemas, every service's migrations).
 * 3. Starts the five apps as separate processes, each with its own-role DATABASE_URL, its own
 *    service key and the digests of the other callers' keys (docs/service-credentials.md), and
 *    their output prefixed with the service name. MM_REPLICAS (or MM_REPLICAS_<SERVICE>) runs
 *    several processes of a service (tools/replicas.ts): each on its own port, its callers given
 *    the list, except the orchestrator's, which share its two ports through node:cluster with this
 *    process as the primary (it accepts the connections and passes each to one replica). The keys
 *    are generated for this run, or derived from MM_SERVICE_KEY_SEED when set (so `npm run demo`
 *    can derive the operators' key); they are never written to disk, and the seed itself reaches no
 *    app (nor a cluster worker: see workerEnv).
 * 4. Supervises them: an app that exits on its own is restarted after a backoff (1 s, doubling with
 *    each crash inside a sliding minute) while the others keep serving; the fifth crash within that
 *    minute gives up, stops everything and exits 1 (MM_RESTART_* change these numbers).
 * Ctrl-C / SIGTERM / SIGHUP stops the apps, then whatever infrastructure it started. So does the death of
 * the process that started it (npm killed with SIGKILL, a closed terminal): nothing it started may
 * outlive it. `npm start` runs this file in the script's own process (scripts/start.mjs), so the
 * signal npm forwards to its script reaches this process, not an intermediate shell.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { SERVICES, SERVICE_NAMES, type ServiceName, serviceDatabaseUrl } from '@mm/contracts';
import {
  INTERNAL_PORT_OFFSET,
  type ReplicaCounts,
  ReplicaConfigError,
  layoutPorts,
  orchestratorInternalUrl,
  portOf,
  replicaCounts,
  replicaPort,
  serviceUrls,
} from './replicas';
import { type ServiceKeys, deriveServiceKeys, generateServiceKeys, serviceCredentialEnv } from '../libs/platform/src/service-credentials';
import { DEFAULT_ADMIN_URL, migrateAll } from './db';
import { TOTP_ISSUER, otpauthUri } from '../libs/platform/src/totp';
import { bootstrapAdminTotpSecret } from './staff-sign-in';
import {
  InfraError,
  type ManagedProcess,
  type RestartLimits,
  RestartPolicy,
  findExecutable,
  isLoopbackHost,
  probePostgres,
  probeRedis,
  redactUrl,
  restartLimitsFromEnv,
  startEmbeddedPostgres,
  startLocalRedis,
} from './infra';

const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const DEFAULT_PORT_BASE = 3000;
const READY_TIMEOUT_MS = 60_000;
/** An app gets this long after SIGTERM (its own SHUTDOWN_TIMEOUT_MS is 10 s by default) before SIGKILL. */
const APP_STOP_GRACE_MS = (Number(process.env.SHUTDOWN_TIMEOUT_MS) || 10_000) + 5_000;

/** Repository root: this file runs as dist/tools/start.js. */
const ROOT = basename(resolve(__dirname, '..')) === 'dist' ? resolve(__dirname, '..', '..') : resolve(__dirname, '..');

const color = process.stdout.isTTY && !process.env.NO_COLOR;
/** ANSI colours of the apps' prefixes; the servers we run are grey, our own lines bold. */
const COLORS = [36, 33, 35, 32, 34];
const GREY = 90;
const BOLD = 1;
/** Widest label: a service name, or `service#r` once some service runs several replicas. */
let WIDTH = Math.max(...[...SERVICE_NAMES, 'postgres', 'start'].map((n) => n.length));

function prefixed(name: string, ansi: number): (line: string) => void {
  const tag = () => {
    const label = `[${name}]`.padEnd(WIDTH + 2);
    return color ? `\x1b[${ansi}m${label}\x1b[0m` : label;
  };
  return (line) => {
    process.stdout.write(`${tag()} ${line}\n`);
  };
}

const say = prefixed('start', BOLD);
// A closed terminal or pipe must not crash the shutdown.
process.stdout.on('error', () => undefined);

/** One supervised app: the process running now (replaced at each restart) and its restart policy. */
interface AppProcess {
  service: ServiceName;
  index: number;
  /** which of the service's replicas, from 0 */
  replica: number;
  /** the service's name, with `#replica` when it runs several */
  label: string;
  /** a replica of the orchestrator sharing its ports: a cluster worker of this process */
  clustered: boolean;
  env: NodeJS.ProcessEnv;
  policy: RestartPolicy;
  child: ChildProcess;
  exited: Promise<void>;
  /** set while a restart waits out its backoff */
  restartTimer?: NodeJS.Timeout;
}

const infra: ManagedProcess[] = [];
const apps: AppProcess[] = [];
let stopping = false;
let restartLimits: RestartLimits;
let replicas: ReplicaCounts;

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null && child.pid !== undefined;
}

function portBase(): number {
  const raw = process.env.MM_PORT_BASE;
  if (raw === undefined || raw === '') return DEFAULT_PORT_BASE;
  const base = Number(raw);
  if (!Number.isInteger(base) || base < 1024 || base > 65_530)
    throw new InfraError(`MM_PORT_BASE must be an integer between 1024 and 65530 (got "${raw}")`);
  return base;
}

/**
 * Every app listens on loopback only; HOST opens the orchestrator (the public entry point) to other
 * interfaces when asked. Development must not be reachable from the network by default: its SMS box
 * shows the codes sent.
 */
function hostOf(service: ServiceName): string {
  return service === 'orchestrator' ? (process.env.HOST ?? '127.0.0.1') : '127.0.0.1';
}

function assertPortFree(host: string, port: number, service: ServiceName): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new InfraError(
          error.code === 'EADDRINUSE'
            ? `port ${port} (${service}) is already in use: is the platform already running? Stop it or set MM_PORT_BASE to another base`
            : `cannot listen on ${host}:${port} (${service}): ${error.message}`,
        ),
      );
    });
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolvePromise()));
  });
}

async function ensurePostgres(adminUrl: string): Promise<void> {
  const url = new URL(adminUrl);
  const probe = await probePostgres(adminUrl);
  if (probe.state === 'up') {
    say(`PostgreSQL: ${redactUrl(adminUrl)}`);
    return;
  }
  if (probe.state === 'failing')
    throw new InfraError(`PostgreSQL at ${redactUrl(adminUrl)} refused the connection (${probe.reason}): fix DATABASE_URL`);
  if (!isLoopbackHost(url.hostname)) {
    throw new InfraError(
      `PostgreSQL is not reachable at ${redactUrl(adminUrl)}: start it, or set DATABASE_URL to a running server (a local URL starts an embedded one)`,
    );
  }
  const port = Number(url.port || 5432);
  say(`no PostgreSQL on ${url.hostname}:${port}: starting an embedded PostgreSQL there (data in .data/postgres)`);
  await startEmbeddedPostgres({
    adminUrl,
    dataDir: join(ROOT, '.data', 'postgres'),
    log: prefixed('postgres', GREY),
    track: (p) => infra.push(p),
  });
  say(`embedded PostgreSQL ready on ${url.hostname}:${port}`);
}

async function ensureRedis(redisUrl: string): Promise<void> {
  const url = new URL(redisUrl);
  const probe = await probeRedis(redisUrl);
  if (probe.state === 'up') {
    say(`Redis: ${redactUrl(redisUrl)}`);
    return;
  }
  if (probe.state === 'failing') throw new InfraError(`Redis at ${redactUrl(redisUrl)} refused us (${probe.reason}): fix REDIS_URL`);
  if (!isLoopbackHost(url.hostname)) {
    throw new InfraError(`Redis is not reachable at ${redactUrl(redisUrl)}: start it, or set REDIS_URL to a running Redis`);
  }
  if (!findExecutable('redis-server')) {
    throw new InfraError(
      `Redis is not reachable at ${redactUrl(redisUrl)} and redis-server is not installed: install Redis 7 (apt-get install redis-server) or set REDIS_URL to a running Redis`,
    );
  }
  say(`no Redis on ${url.hostname}:${url.port || 6379}: starting a local redis-server there (no persistence)`);
  await startLocalRedis(redisUrl, prefixed('redis', GREY), (p) => infra.push(p));
  say('local redis-server ready');
}

/** Variables naming the run's key seed: INTERNAL_SERVICE_KEY is its older name (one shared key per run, before per-caller keys: docs/service-credentials.md). */
const SEED_VARIABLES = ['MM_SERVICE_KEY_SEED', 'INTERNAL_SERVICE_KEY'] as const;

/** One key per caller for this run: derived from the seed when one is set, random otherwise. */
function runServiceKeys(): ServiceKeys {
  const name = SEED_VARIABLES.find((v) => process.env[v]);
  if (!name) return generateServiceKeys();
  if (process.env[name]!.length < 32) throw new InfraError(`${name} must be at least 32 characters (openssl rand -hex 32)`);
  return deriveServiceKeys(process.env[name]!);
}

interface RunSecrets {
  keys: ServiceKeys;
  /** partners' merchant pseudonyms, stable across the restarts of one run */
  pseudonymSecret: string;
  /** the bootstrap administrator's TOTP secret given to auth, when there is one */
  adminTotpSecret?: string;
}

/**
 * The bootstrap administrator's TOTP secret (docs/auth-limits.md "Staff sign-in"): the one set in
 * BOOTSTRAP_ADMIN_TOTP_SECRET, else, in development with a key seed, one derived from the seed, so
 * that it is the same at every run with that seed (auth enrols the administrator with it once) and
 * `npm run demo` can compute it too. Without a seed, none: the administrator enrols at its first sign-in.
 */
function adminTotpSecret(): string | undefined {
  if (!process.env.BOOTSTRAP_ADMIN_PHONE) return undefined;
  if (process.env.BOOTSTRAP_ADMIN_TOTP_SECRET) return process.env.BOOTSTRAP_ADMIN_TOTP_SECRET;
  const seed = SEED_VARIABLES.map((v) => process.env[v]).find(Boolean);
  if (!seed || process.env.NODE_ENV === 'production') return undefined;
  return bootstrapAdminTotpSecret(seed);
}

/** Tells a newcomer how to sign in as the bootstrap administrator, second factor included. */
function sayBootstrapAdmin(secret: string | undefined): void {
  const phone = process.env.BOOTSTRAP_ADMIN_PHONE;
  if (!phone) return;
  say(`bootstrap administrator: phone ${phone}, PIN ${process.env.BOOTSTRAP_ADMIN_PIN ?? '(BOOTSTRAP_ADMIN_PIN not set)'}`);
  if (!secret) {
    say('  second factor: enrolled at its first sign-in (set MM_SERVICE_KEY_SEED or BOOTSTRAP_ADMIN_TOTP_SECRET to have one ready)');
    return;
  }
  say(`  TOTP secret ${secret} (add it to an authenticator app: ${otpauthUri(secret, phone, TOTP_ISSUER)})`);
  say('  if this administrator enrolled another secret before, that one stays');
}

function appEnv(
  service: ServiceName,
  replica: number,
  ctx: { adminUrl: string; redisUrl: string; secrets: RunSecrets; base: number },
): NodeJS.ProcessEnv {
  const { role } = SERVICES[service];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: hostOf(service),
    PORT: String(replicaPort(service, ctx.base, replica)),
    // The app's own role: it can use its own schema and nothing else.
    DATABASE_URL: serviceDatabaseUrl(ctx.adminUrl, service, process.env[`${role.toUpperCase()}_PASSWORD`]),
    REDIS_URL: ctx.redisUrl,
    // Its own key and the other callers' digests; which routes each may use is the app's own table.
    ...serviceCredentialEnv(service, ctx.secrets.keys),
    LOG_PRETTY: process.env.LOG_PRETTY ?? 'true',
  };
  // The seed derives every key: no app may hold it.
  delete env.MM_SERVICE_KEY_SEED;
  if (service === 'partners') env.PARTNERS_PSEUDONYM_SECRET = process.env.PARTNERS_PSEUDONYM_SECRET || ctx.secrets.pseudonymSecret;
  if (service === 'auth' && ctx.secrets.adminTotpSecret) env.BOOTSTRAP_ADMIN_TOTP_SECRET = ctx.secrets.adminTotpSecret;
  if (color && !('FORCE_COLOR' in env)) env.FORCE_COLOR = '1'; // pino-pretty writes to our pipe, not a TTY
  // auth is reached only through the gateway, which appends the client address to X-Forwarded-For.
  if (service === 'auth') env.TRUST_FORWARDED_FOR = 'true';
  // Every caller gets the list of the callee's replicas (one URL when it runs one).
  const local = (s: ServiceName) => serviceUrls(s, ctx.base, replicas);
  // The ledger verifies consent proofs with auth's key set: it must find auth on a moved port base too.
  if (service === 'ledger-wallets') env.AUTH_URL = local('auth');
  // The orchestrator's internal listener (metrics, /api/internal/*) stays on loopback; partners calls it there.
  if (service === 'partners') {
    env.ORCHESTRATOR_URL = orchestratorInternalUrl(ctx.base);
    env.WEBHOOK_DISPATCHER_URL = local('webhook-dispatcher');
  }
  if (service === 'orchestrator') {
    Object.assign(env, {
      INTERNAL_HOST: '127.0.0.1',
      INTERNAL_PORT: String(portOf('orchestrator', ctx.base) + INTERNAL_PORT_OFFSET),
      AUTH_URL: local('auth'),
      PARTNERS_URL: local('partners'),
      LEDGER_URL: local('ledger-wallets'),
      WEBHOOK_DISPATCHER_URL: local('webhook-dispatcher'),
    });
  }
  return env;
}

/**
 * A cluster worker's environment is ours merged with the one given: a variable the app must not
 * see (the key seed) is named with no value, which leaves it out of the child's environment.
 */
function workerEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.keys(process.env).map((k) => [k, undefined])), ...env };
}

function launch(app: AppProcess, entry: string): ChildProcess {
  if (!app.clustered) return spawn(process.execPath, [entry], { cwd: ROOT, env: app.env, stdio: ['ignore', 'pipe', 'pipe'] });
  // Round robin by this process: it accepts each connection and sends it to the next worker. The
  // primary only passes the socket's handle; the bytes go straight between client and worker.
  cluster.schedulingPolicy = cluster.SCHED_RR;
  cluster.setupPrimary({ exec: entry, cwd: ROOT, silent: true });
  return cluster.fork(workerEnv(app.env)).process;
}

function spawnApp(app: AppProcess): void {
  const entry = join(ROOT, 'dist', 'apps', app.service, 'src', 'main.js');
  if (!existsSync(entry)) throw new InfraError(`${entry} is missing: run npm run build`);
  const child = launch(app, entry);
  const log = prefixed(app.label, COLORS[app.index % COLORS.length]);
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on('line', log);
  }
  app.child = child;
  app.exited = new Promise<void>((resolvePromise) => {
    let reported = false;
    const ended = (how: string) => {
      resolvePromise();
      if (reported || stopping) return;
      reported = true;
      onCrash(app, how);
    };
    child.once('exit', (code, signal) => ended(signal ? `signal ${signal}` : `exit code ${code}`));
    child.once('error', (error) => ended(`could not be started: ${error.message}`));
  });
}

function startApp(service: ServiceName, index: number, replica: number, env: NodeJS.ProcessEnv): AppProcess {
  const several = replicas[service] > 1;
  const app = {
    service,
    index,
    replica,
    label: several ? `${service}#${replica}` : service,
    clustered: several && service === 'orchestrator',
    env,
    policy: new RestartPolicy(restartLimits),
  } as AppProcess;
  spawnApp(app);
  return app;
}

/**
 * An app ended without being asked to: the others keep serving (the gateway's /api/health reports
 * this one down) while it waits out its backoff and starts again; too many crashes in the window
 * and we give up on the whole platform rather than flap forever.
 */
function onCrash(app: AppProcess, how: string): void {
  const decision = app.policy.onCrash();
  const window = `${restartLimits.windowMs / 1000} s`;
  if (decision.action === 'give-up') {
    say(`✖ ${app.label} exited unexpectedly (${how}): ${decision.crashes} crashes within ${window}, giving up: stopping the platform`);
    void shutdown(1);
    return;
  }
  say(
    `✖ ${app.label} exited unexpectedly (${how}): restarting in ${(decision.delayMs / 1000).toFixed(1)} s ` +
      `(crash ${decision.crashes} of ${restartLimits.maxCrashes} allowed within ${window})`,
  );
  app.restartTimer = setTimeout(() => {
    app.restartTimer = undefined;
    if (stopping) return;
    try {
      spawnApp(app);
    } catch (error) {
      say(`✖ ${app.label} cannot be restarted (${error instanceof Error ? error.message : String(error)}): stopping the platform`);
      void shutdown(1);
      return;
    }
    say(`↻ ${app.label} restarted (pid ${app.child.pid})`);
    void reportBack(app, app.child);
  }, decision.delayMs);
}

/** Says when a restarted app answers its /health again (or that it did not within the ready timeout). */
async function reportBack(app: AppProcess, child: ChildProcess): Promise<void> {
  // Its ports are shared: another replica would answer a probe there. Its own listen is the sign.
  if (app.clustered) {
    const onListening = (worker: { process: ChildProcess }) => {
      if (worker.process !== child) return;
      cluster.off('listening', onListening);
      say(`✔ ${app.label} is back (listening)`);
    };
    cluster.on('listening', onListening);
    child.once('exit', () => cluster.off('listening', onListening));
    return;
  }
  const url = `http://127.0.0.1:${app.env.PORT}/health`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!stopping && app.child === child && alive(child) && Date.now() < deadline) {
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok) {
        say(`✔ ${app.label} is back (healthy)`);
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  if (!stopping && app.child === child && alive(child))
    say(`warning: restarted ${app.label} is not healthy after ${READY_TIMEOUT_MS / 1000} s`);
}

async function stopApp(app: AppProcess): Promise<void> {
  if (app.restartTimer) {
    clearTimeout(app.restartTimer);
    app.restartTimer = undefined;
  }
  if (!alive(app.child)) return;
  app.child.kill('SIGTERM');
  const timer = setTimeout(() => {
    if (!alive(app.child)) return;
    say(`${app.label} did not stop within ${APP_STOP_GRACE_MS / 1000} s: killing it`);
    app.child.kill('SIGKILL');
  }, APP_STOP_GRACE_MS);
  await app.exited;
  clearTimeout(timer);
}

let shutdownPromise: Promise<void> | undefined;

/** Apps first (they drain requests and close their pools), then the servers we started, newest first. */
function shutdown(exitCode: number): Promise<void> {
  stopping = true;
  shutdownPromise ??= (async () => {
    if (apps.some((a) => alive(a.child))) say('stopping the services…');
    await Promise.all(apps.map(stopApp));
    for (const p of [...infra].reverse()) {
      if (alive(p.child)) say(`stopping ${p.name}…`);
      await p.stop();
    }
    if (apps.length + infra.length > 0) say(exitCode === 0 ? 'stopped' : `stopped (exit ${exitCode})`);
    process.exit(exitCode);
  })();
  return shutdownPromise;
}

let signals = 0;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    signals += 1;
    if (signals === 1) {
      void shutdown(0);
      return;
    }
    // A second Ctrl-C: do not wait for graceful shutdowns.
    say('forced stop');
    for (const child of [...apps.map((a) => a.child), ...infra.map((p) => p.child)]) if (alive(child)) child.kill('SIGKILL');
    process.exit(130);
  });
}

/**
 * The process that started us. When it dies without signalling us (npm SIGKILLed, the terminal or
 * the IDE's runner gone), we are re-parented and nobody would ever stop the apps: we stop them.
 * Re-parenting is what we watch (`process.ppid` is read afresh each time), not whether `parentPid`
 * still answers signal 0: a dead parent its own parent has not reaped yet still does (a zombie), and
 * so does an unrelated process that was given the same pid since.
 */
const parentPid = process.ppid;
if (parentPid > 1) {
  const watch = setInterval(() => {
    if (process.ppid === parentPid) return;
    clearInterval(watch);
    say(`the process that started us (pid ${parentPid}) is gone: stopping`);
    void shutdown(0);
  }, 1_000);
  watch.unref();
}

// Last resort (an unexpected crash of this process): nothing we started may outlive us.
process.on('exit', () => {
  for (const a of apps) if (alive(a.child)) a.child.kill('SIGTERM');
  for (const p of infra) if (alive(p.child)) p.child.kill(p.name === 'postgres' ? 'SIGINT' : 'SIGTERM');
});

async function waitForPlatform(base: number, startedAt: number): Promise<void> {
  const url = `http://127.0.0.1:${base}/api/health`;
  while (!stopping && Date.now() - startedAt < READY_TIMEOUT_MS) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
      // `degraded` is 200 too: ready means every replica of every service up.
      if (res.ok && ((await res.json()) as { status?: unknown }).status === 'ok') {
        say(`platform ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s: ${url} (Ctrl-C stops everything)`);
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  if (!stopping) say(`warning: ${url} did not report every service up within ${READY_TIMEOUT_MS / 1000} s; see the logs above`);
}

function checkedUrl(name: string, value: string, protocols: string[]): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InfraError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(url.protocol)) throw new InfraError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  return value;
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const adminUrl = checkedUrl('DATABASE_URL', process.env.DATABASE_URL || DEFAULT_ADMIN_URL, ['postgres:', 'postgresql:']);
  const redisUrl = checkedUrl('REDIS_URL', process.env.REDIS_URL || DEFAULT_REDIS_URL, ['redis:', 'rediss:']);
  const base = portBase();
  const secrets: RunSecrets = {
    keys: runServiceKeys(),
    pseudonymSecret: randomBytes(32).toString('hex'),
    adminTotpSecret: adminTotpSecret(),
  };
  restartLimits = restartLimitsFromEnv();
  replicas = replicaCounts();
  if (SERVICE_NAMES.some((s) => replicas[s] > 1)) WIDTH += 2; // `#r`
  const ports = layoutPorts(base, replicas);
  const highest = Math.max(...ports.map((p) => p.port));
  if (highest > 65_535) throw new InfraError(`MM_PORT_BASE ${base} leaves no room for port ${highest}: choose a lower base`);
  for (const p of ports) {
    const internal = p.port === portOf('orchestrator', base) + INTERNAL_PORT_OFFSET;
    await assertPortFree(internal ? '127.0.0.1' : hostOf(p.service), p.port, p.service);
  }

  await ensurePostgres(adminUrl);
  if (stopping) return;
  await ensureRedis(redisUrl);
  if (stopping) return;

  const migrated = await migrateAll(adminUrl);
  for (const service of SERVICE_NAMES) {
    const ran = migrated[service];
    say(`migrate ${service}: ${ran.length === 0 ? 'up to date' : `applied ${ran.join(', ')}`}`);
  }
  if (stopping) return;

  SERVICE_NAMES.forEach((service, index) => {
    for (let replica = 0; replica < replicas[service]; replica++)
      apps.push(startApp(service, index, replica, appEnv(service, replica, { adminUrl, redisUrl, secrets, base })));
  });
  if (SERVICE_NAMES.every((s) => replicas[s] === 1)) say(`started ${SERVICE_NAMES.map((s) => `${s} :${portOf(s, base)}`).join(', ')}`);
  else sayLayout(base);
  await waitForPlatform(base, startedAt);
  if (!stopping) sayBootstrapAdmin(secrets.adminTotpSecret);
}

/** Which process listens where, when some service runs several. */
function sayLayout(base: number): void {
  say('started:');
  for (const service of SERVICE_NAMES) {
    const mine = apps.filter((a) => a.service === service);
    if (service === 'orchestrator' && mine.length > 1) {
      const pids = mine.map((a) => `${a.label} (pid ${a.child.pid})`).join(', ');
      say(`  orchestrator :${portOf(service, base)} and :${portOf(service, base) + INTERNAL_PORT_OFFSET}, shared by ${pids}`);
      continue;
    }
    say(`  ${mine.map((a) => `${a.label} :${a.env.PORT} (pid ${a.child.pid})`).join(', ')}`);
  }
}

main().catch((error: unknown) => {
  if (stopping) return; // a failure caused by our own stop
  const message =
    error instanceof InfraError || error instanceof ReplicaConfigError
      ? error.message
      : `start failed: ${error instanceof Error ? error.message : String(error)}`;
  process.stderr.write(`${message}\n`);
  void shutdown(1);
});
