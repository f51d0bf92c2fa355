import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { HttpSmsSender } from '../src/notifications/http-sms-sender';
import { SmsOutbox } from '../src/notifications/sms-outbox.service';
import { SmsRelay } from '../src/notifications/sms-relay.service';
import type { OrchestratorConfig } from '../src/orchestrator.config';
import { type TestDatabase, createTestDatabase } from '../../../test/support/test-env';

/** The claim size of the relay (sms-relay.service.ts). */
const BATCH = 20;
/** A number the provider in this test refuses with a 503. */
const REFUSED_PHONE = '+237690009999';

/**
 * One relay pass drains the whole backlog, a batch after another, and marks a batch's sent rows
 * with one statement: a relay limited to one batch per poll falls behind as soon as payments write
 * SMS faster than that. The provider's HTTP API is played by a server in the test; the database is
 * the real one, and every statement the relay runs is recorded.
 */
describe('orchestrator: SMS outbox relay drains in batches', () => {
  const received: string[] = [];
  let provider: Server;
  /** while set, the provider holds its answers until this resolves */
  let gate: Promise<void> | undefined;
  let onRequest: (() => void) | undefined;
  let db: TestDatabase;
  let pool: Pool;
  let config: OrchestratorConfig;
  let statements: string[] = [];
  // The relay and the outbox only run statements: the service's own role on the file's database,
  // each statement recorded so that the marking statements can be counted.
  const database = () =>
    ({
      query: async (text: string, params?: unknown[]) => {
        statements.push(text);
        return (await pool.query(text, params)).rows;
      },
    }) as unknown as DataSource;
  const relay = () => new SmsRelay(config, database(), new HttpSmsSender(config));
  const markSentStatements = () => statements.filter((s) => /SET status = 'sent'/.test(s)).length;

  const enqueue = async (prefix: string, count: number, to = (i: number) => `+2376900${String(i).padStart(5, '0')}`) => {
    const outbox = new SmsOutbox(database());
    for (let i = 0; i < count; i++) await outbox.enqueue({ dedupeKey: `${prefix}:${i}`, to: to(i), text: `${prefix} message ${i}` });
  };
  const rows = async (prefix: string) =>
    (
      await pool.query<{ id: string; to_phone: string; status: string; attempts: number; last_error: string | null; wait_sec: number }>(
        `SELECT id, to_phone, status, attempts, last_error, extract(epoch FROM next_attempt_at - now())::float8 AS wait_sec
           FROM orchestrator.sms_outbox WHERE dedupe_key LIKE $1 || ':%' ORDER BY dedupe_key`,
        [prefix],
      )
    ).rows;

  beforeAll(async () => {
    provider = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const { to } = JSON.parse(body) as { to: string };
        onRequest?.();
        void (gate ?? Promise.resolve()).then(() => {
          if (to === REFUSED_PHONE) return void res.writeHead(503).end();
          received.push(req.headers['idempotency-key'] as string);
          res.writeHead(202).end();
        });
      });
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const port = (provider.address() as AddressInfo).port;
    db = await createTestDatabase();
    pool = new Pool({ connectionString: db.urlFor('orchestrator'), max: 4 });
    // An idle client the server ends (the file's database dropped by FORCE at the end, a backend
    // terminated) emits 'error' on the pool: without a listener Node treats it as unhandled and jest
    // fails whichever test is running. A query that meets it still fails its test.
    pool.on('error', () => undefined);
    config = {
      SMS_PROVIDER_URL: `http://127.0.0.1:${port}/sms`,
      SMS_PROVIDER_TIMEOUT_MS: 5_000,
      SMS_MAX_ATTEMPTS: 3,
      SMS_RELAY_POLL_MS: 0,
    } as OrchestratorConfig;
  });
  beforeEach(async () => {
    // Each test starts with nothing due: what an earlier test left is out of the way.
    await pool.query(`UPDATE orchestrator.sms_outbox SET status = 'cancelled' WHERE status = 'pending'`);
    received.length = 0;
    statements = [];
    gate = undefined;
    onRequest = undefined;
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
    await new Promise((resolve) => provider.close(resolve));
  });

  it('one pass sends a backlog of more than two batches, each message once, with one marking statement per batch', async () => {
    await enqueue('drain', 45);

    expect(await relay().relayOnce()).toBe(45);

    const after = await rows('drain');
    expect(after.map((r) => [r.status, r.attempts])).toEqual(Array.from({ length: 45 }, () => ['sent', 1]));
    expect([...received].sort()).toEqual(after.map((r) => r.id).sort());
    // 20 + 20 + 5: three batches, the last one short, so the pass ends there.
    expect(markSentStatements()).toBe(Math.ceil(45 / BATCH));
  });

  it('a message the provider refuses gets its attempt and backoff, and the rest of its batch is marked sent together', async () => {
    await enqueue('refused', 5, (i) => (i === 2 ? REFUSED_PHONE : `+2376900${String(100 + i).padStart(5, '0')}`));
    // A message one try away from its last: refused once more, it is given up.
    await enqueue('last-try', 1, () => REFUSED_PHONE);
    await pool.query(`UPDATE orchestrator.sms_outbox SET attempts = $1 WHERE dedupe_key = 'last-try:0'`, [config.SMS_MAX_ATTEMPTS - 1]);

    expect(await relay().relayOnce()).toBe(4);

    const after = await rows('refused');
    expect(after.map((r) => [r.to_phone === REFUSED_PHONE, r.status, r.attempts])).toEqual([
      [false, 'sent', 1],
      [false, 'sent', 1],
      [true, 'pending', 1],
      [false, 'sent', 1],
      [false, 'sent', 1],
    ]);
    // First retry after the base backoff (5 s); the lease it was claimed with is replaced.
    expect(after[2].last_error).toBe('SMS provider answered 503');
    expect(after[2].wait_sec).toBeGreaterThan(3);
    expect(after[2].wait_sec).toBeLessThanOrEqual(5);
    const [lastTry] = await rows('last-try');
    expect([lastTry.status, lastTry.attempts, lastTry.last_error]).toEqual([
      'failed',
      config.SMS_MAX_ATTEMPTS,
      'SMS provider answered 503',
    ]);
    expect(markSentStatements()).toBe(1);
    expect(received.sort()).toEqual(
      after
        .filter((r) => r.status === 'sent')
        .map((r) => r.id)
        .sort(),
    );
  });

  it('a pass in which a whole batch is refused stops there: the rest of the backlog keeps its attempts for the next poll', async () => {
    await enqueue('outage', 45, () => REFUSED_PHONE);

    expect(await relay().relayOnce()).toBe(0);

    const after = await rows('outage');
    expect(after.filter((r) => r.attempts === 1 && r.status === 'pending').length).toBe(BATCH);
    expect(after.filter((r) => r.attempts === 0 && r.wait_sec <= 0).length).toBe(45 - BATCH);
    expect(markSentStatements()).toBe(0);
  });

  it('two replicas draining the same backlog at once send every message exactly once', async () => {
    await enqueue('replicas', 70);

    const [a, b] = await Promise.all([relay().relayOnce(), relay().relayOnce()]);

    expect(a + b).toBe(70);
    const after = await rows('replicas');
    expect(after.every((r) => r.status === 'sent' && r.attempts === 1)).toBe(true);
    expect(received.length).toBe(70);
    expect(new Set(received)).toEqual(new Set(after.map((r) => r.id)));
  });

  it('a pass under way at shutdown finishes the batch it holds and claims no other', async () => {
    await enqueue('shutdown', 45);
    let release!: () => void;
    gate = new Promise<void>((resolve) => (release = resolve));
    const first = new Promise<void>((resolve) => (onRequest = resolve));
    const stopping = relay();

    const pass = stopping.relayOnce();
    // The first batch is claimed and its sends are held by the provider: the process stops now.
    await first;
    const shutdown = stopping.onApplicationShutdown();
    release();

    expect(await pass).toBe(BATCH);
    await shutdown;
    const after = await rows('shutdown');
    expect(after.filter((r) => r.status === 'sent').length).toBe(BATCH);
    expect(after.filter((r) => r.status === 'pending' && r.attempts === 0).length).toBe(45 - BATCH);
    // What the stopped pass left is due again at once for the next leader, not leased.
    expect(after.filter((r) => r.status === 'pending' && r.wait_sec <= 0).length).toBe(45 - BATCH);
  });
});
