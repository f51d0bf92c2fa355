import { randomUUID } from 'node:crypto';
import { Logger, type LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client } from 'pg';
import { DatabaseConfig, JOB_LEASE, type JobLease, MetricsService, PeriodicJob, PlatformModule, PostgresJobLease } from '@mm/platform';
import { TEST_ADMIN_URL } from '../../../test/support/infra';

/**
 * Two leases in one process are two replicas: each has its own connection, as each process would.
 * Every test uses a service name of its own, so files running beside it never share a lock.
 */
const EVERY_MS = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Run {
  replica: string;
  slot: number;
}

/** What the `periodic job run` lines said, with which replica's job logged them. */
const runs: Run[] = [];
let current = '';
const capture = (message: unknown, text?: unknown) => {
  if (text === 'periodic job run') runs.push({ replica: current, slot: (message as { slot: number }).slot });
};
Logger.overrideLogger({ log: capture, debug: capture, error: () => undefined, warn: () => undefined } satisfies LoggerService);

let admin: Client;
const opened: Array<{ stop(): Promise<void> } | PostgresJobLease> = [];

beforeAll(async () => {
  admin = new Client({ connectionString: TEST_ADMIN_URL });
  await admin.connect();
});

afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await (o instanceof PostgresJobLease ? o.close() : o.stop());
  runs.length = 0;
});

afterAll(() => admin.end());

function replica(name: string, service: string, options: { retryAfterMs?: number; metrics?: MetricsService } = {}) {
  const lease = new PostgresJobLease({ service, databaseUrl: TEST_ADMIN_URL, ...options });
  const job = new PeriodicJob(
    'test.job',
    () => Promise.resolve(),
    (error) => {
      throw error;
    },
  );
  const tagged = { lease, job, name };
  opened.push(lease, job);
  return tagged;
}

/** Starts a replica's job; its lease's `ran`, called right before the line is logged, names the replica. */
function start(r: ReturnType<typeof replica>, everyMs = EVERY_MS): void {
  r.job.start(everyMs, {
    hold: (job) => r.lease.hold(job),
    release: (job) => r.lease.release(job),
    ran: (job) => {
      current = r.name;
      r.lease.ran(job);
    },
  });
}

/** The backend holding the job's lock, if any. */
async function holderPid(service: string): Promise<number | undefined> {
  const { rows } = await admin.query<{ pid: number }>(
    `SELECT l.pid FROM pg_locks l, (SELECT hashtextextended($1, 0) AS k) AS lease
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
        AND l.classid = ((k >> 32) & 4294967295)::oid AND l.objid = (k & 4294967295)::oid`,
    [`${service}:test.job`],
  );
  return rows[0]?.pid;
}

async function until(what: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(5);
  }
}

function duplicates(list: Run[]): number[] {
  const seen = new Set<number>();
  return list.filter((r) => seen.has(r.slot) || !seen.add(r.slot)).map((r) => r.slot);
}

describe('periodic jobs across replicas (PostgreSQL session advisory locks)', () => {
  it('of two replicas one runs the job, each slot once', async () => {
    const service = `lease-${randomUUID()}`;
    const a = replica('a', service);
    const b = replica('b', service);
    start(a);
    start(b);
    await sleep(10 * EVERY_MS);
    expect(runs.length).toBeGreaterThanOrEqual(5);
    expect(new Set(runs.map((r) => r.replica)).size).toBe(1);
    expect(duplicates(runs)).toEqual([]);
  });

  it("killing the leader's connection hands the job over at the next slot, and no slot runs twice", async () => {
    const service = `lease-${randomUUID()}`;
    const a = replica('a', service);
    const b = replica('b', service);
    // a longer period: the follower's probes need slack on a loaded machine
    const everyMs = 2 * EVERY_MS;
    start(a, everyMs);
    start(b, everyMs);
    await until(() => runs.length >= 2, 10 * everyMs);
    const leader = runs[runs.length - 1].replica;
    // right after one of the leader's runs: the others hear of it within the slot
    const seen = runs.length;
    await until(() => runs.length > seen, 3 * everyMs);
    const lastOfLeader = runs[runs.length - 1].slot;
    const pid = await holderPid(service);
    expect(pid).toBeDefined();
    await admin.query(`SELECT pg_terminate_backend($1)`, [pid]);
    await sleep(4 * everyMs);

    const after = runs.filter((r) => r.slot > lastOfLeader);
    expect(after.length).toBeGreaterThanOrEqual(3);
    expect(after.every((r) => r.replica !== leader)).toBe(true);
    expect(after[0].slot).toBe(lastOfLeader + 1);
    expect(duplicates(runs)).toEqual([]);
  });

  it('a replica whose lease connection is lost runs nothing until it holds the lease again', async () => {
    const service = `lease-${randomUUID()}`;
    const metrics = new MetricsService();
    const a = replica('a', service, { retryAfterMs: 60_000, metrics });
    start(a);
    await until(() => runs.length >= 2, 10 * EVERY_MS);
    expect(await gauge(metrics, 'periodic_job_leader')).toBe(1);
    await admin.query(`SELECT pg_terminate_backend($1)`, [await holderPid(service)]);
    await sleep(EVERY_MS); // the slot under way may still have started
    const before = runs.length;
    await sleep(5 * EVERY_MS);
    expect(runs.length).toBe(before);
    expect(await gauge(metrics, 'periodic_job_leader')).toBe(0);
    expect(await gauge(metrics, 'periodic_job_runs_total')).toBe(before);
  });

  it('a replica that stops gives the lease back: another runs the next slots, never one already run', async () => {
    const service = `lease-${randomUUID()}`;
    const a = replica('a', service);
    const b = replica('b', service);
    start(a);
    await until(() => runs.length >= 2, 10 * EVERY_MS);
    start(b);
    await sleep(2 * EVERY_MS);
    expect(new Set(runs.map((r) => r.replica))).toEqual(new Set(['a']));
    await a.job.stop();
    const lastOfA = runs[runs.length - 1].slot;
    await sleep(4 * EVERY_MS);
    const ofB = runs.filter((r) => r.replica === 'b');
    expect(ofB.length).toBeGreaterThanOrEqual(2);
    expect(ofB[0].slot).toBeGreaterThan(lastOfA);
    expect(ofB[0].slot).toBeLessThanOrEqual(lastOfA + 2);
    expect(duplicates(runs)).toEqual([]);
  });
});

describe('a hung leader', () => {
  it('loses its leases once its session has been silent for the idle timeout; another process takes them', async () => {
    const service = `lease-${randomUUID()}`;
    const hung = new PostgresJobLease({ service, databaseUrl: TEST_ADMIN_URL, idleTimeoutMs: 300, retryAfterMs: 60_000 });
    const other = new PostgresJobLease({ service, databaseUrl: TEST_ADMIN_URL });
    opened.push(hung, other);
    expect(await hung.hold('test.job')).not.toBeNull();
    expect(await other.hold('test.job')).toBeNull();
    // what a stopped process or a blocked event loop amounts to: nothing more reaches its session
    clearInterval((hung as unknown as { heartbeat: NodeJS.Timeout }).heartbeat);
    const silentSince = Date.now();
    let taken: number | null = null;
    while (taken === null && Date.now() - silentSince < 3_000) {
      await sleep(50);
      taken = await other.hold('test.job');
    }
    expect(taken).not.toBeNull();
    expect(taken! - silentSince).toBeGreaterThanOrEqual(250);
    expect(await hung.hold('test.job')).toBeNull();
  });
});

describe('the lease in an app', () => {
  it('every app with a database gets one; closing the app frees its locks', async () => {
    const service = `lease-${randomUUID()}`;
    const config = Object.assign(new DatabaseConfig(), { DATABASE_URL: TEST_ADMIN_URL, DB_POOL_SIZE: 1 });
    const app = await Test.createTestingModule({
      imports: [PlatformModule.forRoot({ service, config, database: { schema: 'public' } })],
    }).compile();
    await app.init();
    const lease = app.get<JobLease>(JOB_LEASE);
    expect(lease).toBeInstanceOf(PostgresJobLease);
    expect(await lease.hold('test.job')).not.toBeNull();
    expect(await holderPid(service)).toBeDefined();
    await app.close();
    expect(await holderPid(service)).toBeUndefined();
  });
});

async function gauge(metrics: MetricsService, name: string): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  return metric?.values.find((v) => v.labels.job === 'test.job')?.value ?? -1;
}
