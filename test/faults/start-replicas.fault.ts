/**
 * `npm start` with MM_REPLICAS=2 (the built dist/tools/start.js, as the README runs it, on a private
 * PostgreSQL and Redis and a free port base): two processes of every service, the orchestrator's
 * two sharing the public port as cluster workers of start.js. Proves that both replicas of each
 * service answer, that connections to the public port are spread over both orchestrators, and
 * that after a kill -9 of one orchestrator and one ledger replica the platform still answers
 * (/api/health degraded, a ledger call through the gateway served by the other replica) while
 * start.js restarts both.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { SERVICE_NAMES } from '@mm/contracts';
import { layoutPorts, replicaCounts, replicaPort } from '../../tools/replicas';
import { type PrivatePostgres, type PrivateRedis, startPrivatePostgres, startPrivateRedis } from './support/infra';
import { newPhone } from '../support/phones';

const ROOT = join(__dirname, '..', '..');
const START = join(process.env.MM_TEST_DIST ?? join(ROOT, 'dist'), 'tools', 'start.js');
const SEED = 'replica-fault-seed-'.padEnd(48, 'x');

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A base whose every port of the two-replica layout is free, below the ephemeral range. */
async function freeLayoutBase(): Promise<number> {
  const counts = replicaCounts({ MM_REPLICAS: '2' });
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + randomInt(0, 12_000);
    let free = true;
    for (const { port } of layoutPorts(base, counts)) if (!(free = await canListen(port))) break;
    if (free) return base;
  }
  throw new Error('no free port range found');
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers field by field
type Answer = { status: number; body: any };

/** One request on a connection of its own (the cluster hands out connections, not requests). */
function fresh(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, method: init.method ?? 'GET', headers: init.headers, timeout: 20_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('timeout', () => req.destroy(new Error(`${url} timed out`)));
    req.on('error', reject);
    req.end(init.body);
  });
}

const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('fault: npm start with MM_REPLICAS=2', () => {
  let pg: PrivatePostgres;
  let redis: PrivateRedis;
  let start: ChildProcess | undefined;
  let output = '';
  let base: number;

  const gateway = (path: string) => `http://127.0.0.1:${base}${path}`;
  const say = (pattern: RegExp) => pattern.exec(output);
  async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, withinMs = 90_000): Promise<T> {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const found = await Promise.resolve(probe()).catch(() => undefined);
      if (found !== undefined) return found;
      if (Date.now() > deadline || start?.exitCode !== null) throw new Error(`${what}: not seen; start output:\n${output.slice(-6_000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const health = () => fresh(gateway('/api/health'));
  const pidOf = (label: string) => Number(say(new RegExp(`${label.replace('#', '\\#')}[^(]*\\(pid (\\d+)\\)`))?.[1]);

  beforeAll(async () => {
    [pg, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    base = await freeLayoutBase();
    start = spawn(process.execPath, [START], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        DATABASE_URL: pg.adminUrl,
        REDIS_URL: redis.url,
        MM_PORT_BASE: String(base),
        MM_REPLICAS: '2',
        MM_SERVICE_KEY_SEED: SEED,
        NODE_ENV: 'development',
        LOG_LEVEL: 'info',
        LOG_PRETTY: 'false',
        DB_POOL_SIZE: '2',
        INTERNAL_SERVICE_KEY: '',
      },
    });
    const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-400_000));
    start.stdout!.on('data', collect);
    start.stderr!.on('data', collect);
    // Ready means /api/health `ok`: every replica of every service up.
    await until('platform ready', async () => ((await health()).body?.status === 'ok' ? true : undefined), 150_000);
  }, 200_000);

  afterAll(async () => {
    if (start && start.exitCode === null && start.signalCode === null) {
      const exited = new Promise((r) => start!.once('exit', r));
      start.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 30_000)))]);
      clearTimeout(timer);
      if (start.exitCode === null) start.kill('SIGKILL');
    }
    await Promise.all([pg?.destroy(), redis?.destroy()]);
  }, 60_000);

  it('runs two of everything, spreads the public port over both orchestrators, and survives kill -9 of one orchestrator and one ledger replica', async () => {
    // Both replicas of each service answer on their own port.
    for (const service of SERVICE_NAMES.filter((s) => s !== 'orchestrator'))
      for (const r of [0, 1]) expect((await fresh(`http://127.0.0.1:${replicaPort(service, base, r)}/health`)).status).toBe(200);
    const before = await health();
    expect(before.body.details['ledger-wallets'].replicas).toEqual([
      { replica: 0, status: 'up' },
      { replica: 1, status: 'up' },
    ]);

    // Ten connections to the public port: the primary deals them out in turn to both workers.
    const served = () => ({
      0: (output.match(/\[orchestrator#0\][^\n]*"route":"\/api\/config\/currencies"[^\n]*"msg":"request"/g) ?? []).length,
      1: (output.match(/\[orchestrator#1\][^\n]*"route":"\/api\/config\/currencies"[^\n]*"msg":"request"/g) ?? []).length,
    });
    // "platform ready" is /api/health ok, which one worker can answer while the other still boots:
    // first both workers take connections, then ten more are dealt out between them.
    const base0 = await until('both workers serving the public port', async () => {
      expect((await fresh(gateway('/api/config/currencies'))).status).toBe(200);
      const s = served();
      return s[0] >= 1 && s[1] >= 1 ? s : undefined;
    });
    for (let i = 0; i < 10; i++) expect((await fresh(gateway('/api/config/currencies'))).status).toBe(200);
    const spread = await until('both request logs', () => {
      const s = served();
      return s[0] - base0[0] + (s[1] - base0[1]) >= 10 ? s : undefined;
    });
    expect(spread[0] - base0[0]).toBeGreaterThanOrEqual(3);
    expect(spread[1] - base0[1]).toBeGreaterThanOrEqual(3);

    // Cluster workers get start.js's environment merged with theirs: the key seed must still be left out.
    const orchestratorPid = pidOf('orchestrator#0');
    const ledgerPid = pidOf('ledger-wallets#0');
    expect(orchestratorPid).toBeGreaterThan(0);
    expect(ledgerPid).toBeGreaterThan(0);
    expect(readFileSync(`/proc/${orchestratorPid}/environ`, 'utf8')).not.toContain('MM_SERVICE_KEY_SEED');

    // A customer registered through the gateway: the orchestrator creates the wallet at the ledger.
    const phone = newPhone();
    expect(
      (
        await fresh(
          gateway('/api/orchestrator/auth/register'),
          json({ phone, pin: '2580', firstName: 'Ada', lastName: 'Demo', countryCode: 'CM' }),
        )
      ).status,
    ).toBe(201);
    const login = await fresh(gateway('/api/auth/login'), json({ phone, pin: '2580' }));
    expect(login.status).toBe(200);
    const wallet = () => fresh(gateway('/api/orchestrator/me/wallet'), { headers: { authorization: `Bearer ${login.body.token}` } });

    process.kill(orchestratorPid, 'SIGKILL');
    process.kill(ledgerPid, 'SIGKILL');
    // Once the supervisor has seen the worker die. Before that, Node's cluster primary may still hand
    // a new connection to the dead worker, and that connection is never answered (a window of a few
    // milliseconds after the kill: docs/operations.md "Several replicas on one machine").
    await until('orchestrator#0 death seen', () => say(/✖ orchestrator#0 exited unexpectedly/) ?? undefined);

    // Right away: the public port is served by the other worker, /api/health says which replica is down.
    const during = await health();
    expect(during.status).toBe(200);
    expect(during.body.status).toBe('degraded');
    expect(during.body.details['ledger-wallets']).toMatchObject({
      status: 'up',
      replicas: [
        { replica: 0, status: 'down' },
        { replica: 1, status: 'up' },
      ],
    });
    // Ledger calls through the gateway land on the live replica (a refused connection goes to the next).
    for (let i = 0; i < 6; i++) {
      const res = await wallet();
      expect(res.status).toBe(200);
      expect(res.body.balances.length).toBeGreaterThan(0);
    }
    const second = newPhone();
    expect(
      (
        await fresh(
          gateway('/api/orchestrator/auth/register'),
          json({ phone: second, pin: '2580', firstName: 'Bea', lastName: 'Demo', countryCode: 'CM' }),
        )
      ).status,
    ).toBe(201);

    // start.js restarts each on its own, and the platform is whole again.
    await until('orchestrator#0 back', () => say(/✔ orchestrator#0 is back/) ?? undefined);
    await until('ledger-wallets#0 back', () => say(/✔ ledger-wallets#0 is back \(healthy\)/) ?? undefined);
    expect(say(/↻ orchestrator#0 restarted \(pid (\d+)\)/)?.[1]).not.toBe(String(orchestratorPid));
    expect(say(/↻ ledger-wallets#0 restarted \(pid (\d+)\)/)?.[1]).not.toBe(String(ledgerPid));
    await until('health ok again', async () => ((await health()).body?.status === 'ok' ? true : undefined));
    expect(start!.exitCode).toBeNull();
  }, 150_000);
});
