/**
 * `npm run bench:auth`: what the PIN hash costs. The auth service runs in its own process (as in
 * production: the load generator must not share its event loop); closed loops at concurrency 8 of
 *   - GET /health             (no auth work at all: the HTTP + process floor),
 *   - GET /auth/me            (EdDSA verify + session lookup: an authenticated call without hashing),
 *   - POST /auth/login        (one scrypt + session insert + token signing),
 * then login at concurrency 1 for the single-hash latency. Target: login p99 < 150 ms at c=8.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, scrypt } from 'node:crypto';
import { Agent, request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { serviceDatabaseUrl } from '@mm/contracts';
import { generateServiceKeys, serviceCredentialEnv } from '@mm/platform';
import { AuthConfig } from '../../apps/auth/src/auth.config';
import { DEFAULT_ADMIN_URL, migrateAll } from '../../tools/db';
import { type BenchRow, type LoopResult, closedLoop, printTable, writeResults } from '../lib/bench';
import { stopWithRun } from '../lib/run-children';
import { withRunDatabase } from '../lib/run-database';
import { freePort } from '../../test/support/free-port';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONCURRENCY = 8;
/** One key per caller for this run; the bench calls auth's internal routes as the orchestrator. */
const KEYS = generateServiceKeys();
const PIN = '2580';
/** Hash parameters under test (defaults: the service's own defaults). */
const LOG_N = Number(process.env.BENCH_SCRYPT_LOG_N ?? new AuthConfig().PIN_SCRYPT_LOG_N);
const R = Number(process.env.BENCH_SCRYPT_R ?? new AuthConfig().PIN_SCRYPT_R);

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
let base = '';

function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${base}${path}`,
      {
        method,
        agent,
        headers: {
          ...headers,
          ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Record<string, unknown> = {};
          try {
            json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
          } catch {
            /* non-JSON body */
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function startAuth(adminUrl: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(__dirname, '..', '..', 'apps', 'auth', 'src', 'main.js')], {
    env: {
      ...process.env,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: serviceDatabaseUrl(adminUrl, 'auth'),
      DB_POOL_SIZE: '10',
      REDIS_PREFIX: `bench-auth-${process.pid}`,
      ...serviceCredentialEnv('auth', KEYS),
      PIN_PEPPER: randomBytes(32).toString('hex'),
      OTP_HMAC_KEY: randomBytes(32).toString('hex'),
      PIN_SCRYPT_LOG_N: String(LOG_N),
      PIN_SCRYPT_R: String(R),
      // The bench logs in ~150 times a second from one address with a few phones: the abuse limits
      // would measure 429s, not logins.
      LOGIN_LIMIT_PER_PHONE: '0',
      LOGIN_LIMIT_PER_IP: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  stopWithRun(child);
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    if (child.exitCode !== null) throw new Error(`auth exited with ${child.exitCode}`);
    try {
      if ((await call('GET', '/health')).status === 200) return child;
    } catch {
      /* not listening yet */
    }
  }
  throw new Error('auth did not become healthy');
}

function row(workload: string, concurrency: number, r: LoopResult, baseline?: LoopResult, note?: string): BenchRow {
  return {
    workload,
    concurrency,
    committedPerSec: r.perSec,
    ratios: baseline ? { floor: r.perSec / baseline.perSec } : undefined,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    errors: r.errors,
    errorCodes: r.errorCodes,
    note,
  };
}

async function main(): Promise<void> {
  // This run's own database, dropped at the end whatever happened (Ctrl-C included): never another run's.
  await withRunDatabase(process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL, 'auth', (db) => measure(db.adminUrl));
}

async function measure(adminUrl: string): Promise<void> {
  await migrateAll(adminUrl);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const auth = await startAuth(adminUrl, port);
  try {
    const key = { 'x-service-key': KEYS.orchestrator };
    const phones = Array.from({ length: CONCURRENCY }, (_, i) => `+23769100${String(i).padStart(4, '0')}`);
    for (const phone of phones) {
      const idp = await call('POST', '/auth/internal/create-idp-user', { phone, pin: PIN }, key);
      await call('POST', '/auth/internal/create-local-user', { idpUserId: idp.json.idpUserId, roles: ['CUSTOMER'] }, key);
    }
    const tokens = await Promise.all(
      phones.map(async (phone) => (await call('POST', '/auth/login', { phone, pin: PIN })).json.token as string),
    );

    const expect200 = async (p: Promise<{ status: number; json: Record<string, unknown> }>) => {
      const res = await p;
      return res.status === 200 ? undefined : String(res.json.code ?? res.status);
    };
    // Warm-up: JIT, pools, the dummy hash.
    await closedLoop(CONCURRENCY, 2, (w) => expect200(call('POST', '/auth/login', { phone: phones[w], pin: PIN })));

    const health = await closedLoop(CONCURRENCY, SECONDS, () => expect200(call('GET', '/health')));
    const me = await closedLoop(CONCURRENCY, SECONDS, (w) =>
      expect200(call('GET', '/auth/me', undefined, { authorization: `Bearer ${tokens[w]}` })),
    );
    const login = await closedLoop(CONCURRENCY, SECONDS, (w) => expect200(call('POST', '/auth/login', { phone: phones[w], pin: PIN })));
    // A fresh phone per call: one phone would be locked after a few failures, like an account.
    let nextUnknown = 0;
    const unknown = await closedLoop(CONCURRENCY, Math.max(3, SECONDS / 3), () =>
      call('POST', '/auth/login', { phone: `+2376920${String(nextUnknown++).padStart(6, '0')}`, pin: PIN }).then((r) =>
        r.status === 401 ? undefined : String(r.status),
      ),
    );
    const login1 = await closedLoop(1, Math.max(3, SECONDS / 3), () =>
      expect200(call('POST', '/auth/login', { phone: phones[0], pin: PIN })),
    );

    // Same-run baseline: the hash alone, in this process, at the same concurrency (no HTTP, no database).
    const hashOnly = await closedLoop(
      CONCURRENCY,
      Math.max(3, SECONDS / 3),
      () =>
        new Promise<void>((resolve, reject) =>
          scrypt(PIN, randomBytes(16), 32, { N: 2 ** LOG_N, r: R, p: 1, maxmem: 256 * 2 ** LOG_N * R }, (e) => (e ? reject(e) : resolve())),
        ),
    );
    const params = `scrypt N=2^${LOG_N} r=${R} p=1 (${(128 * 2 ** LOG_N * R) / 1048576} MiB/hash)`;
    const rows = [
      row('scrypt alone, in process (same params)', CONCURRENCY, hashOnly, undefined, 'baseline: the hash cost on this machine now'),
      row('GET /health (no auth work)', CONCURRENCY, health),
      row('GET /auth/me (verify JWT + session, no hash)', CONCURRENCY, me, health),
      row('POST /auth/login (PIN hash)', CONCURRENCY, login, health, `${params}; target p99 < 150 ms`),
      row('POST /auth/login unknown phone (dummy hash, 401)', CONCURRENCY, unknown, health, 'same work as a wrong PIN'),
      row('POST /auth/login', 1, login1, health, 'single-request latency'),
    ];
    printTable('bench:auth — cost of the PIN hash (auth in its own process, 2-core machine)', rows);
    const verdict = login.p99Ms < 150 ? 'PASS' : 'FAIL';
    const load = loadavg().map((l) => l.toFixed(2));
    process.stdout.write(`machine: ${cpus().length} cores, load average ${load.join(' ')} (other processes share these cores)\n`);
    process.stdout.write(`login p99 at c=${CONCURRENCY}: ${login.p99Ms.toFixed(1)} ms → ${verdict} (target < 150 ms)\n`);
    const file = writeResults('auth', rows, { scrypt: params, seconds: SECONDS, loginP99TargetMs: 150, verdict, loadAverage: loadavg() });
    process.stdout.write(`results: ${file}\n`);
  } finally {
    auth.kill('SIGTERM');
    await new Promise((r) => auth.once('exit', r));
    agent.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:auth failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
