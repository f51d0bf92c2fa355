/**
 * SIGTERM to a built ledger process in the middle of a burst of confirms on one hot account whose
 * lock another session holds (a long money transaction elsewhere). Before, the waiting confirms
 * replayed lock wait after lock wait past the 10 s shutdown deadline, and the ledger ended with
 * "graceful shutdown timed out" and exit 1. Now the work in flight ends within one lock wait and
 * the rest is refused: the process exits 0, every request gets an answer (a 503 with Retry-After
 * for all that could not run), nothing of a refused one was committed, and the same requests sent
 * again with their keys execute exactly once. Needs dist/ (the test command builds first).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { uuidLockKey } from '../src/db/lock-keys';
import { freePort } from '../../../test/support/free-port';
import { allowedCallerKey, createTestRedis, serviceEnv } from '../../../test/support/test-env';
import { type Harness, contextFor, fundedAccount, invariants, pinVerifiedIntent, startLedger } from './ledger-harness';

const MAIN = join(__dirname, '../../../dist/apps/ledger-wallets/src/main.js');
/** Within the admitted sessions (DB_POOL_SIZE − 1), so that the whole burst is observable inside the ledger. */
const BURST = 12;

/** A bound for a hang, not a speed. */
async function until(what: string, check: () => Promise<boolean>, output: () => string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`never observed: ${what}\n${output().slice(-3_000)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

async function gauge(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

describe('ledger SIGTERM during a burst of lock-bound confirms', () => {
  let h: Harness;
  const redis = createTestRedis();
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await redis.flush();
    await h.close();
  });

  it('exits 0 inside its deadline, answers every request, and each refused one executes once when sent again', async () => {
    const payer = await fundedAccount(h, 100_000);
    const payee = await fundedAccount(h, 0);
    const intents: string[] = [];
    for (let i = 0; i < BURST; i++) intents.push(await pinVerifiedIntent(h, payer, payee, 100 + i));
    const keys = intents.map(() => randomUUID());
    const before = await invariants(h.admin);

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH,
        ...serviceEnv('ledger-wallets', h.db, redis, {
          PORT: String(port),
          LOG_LEVEL: 'info',
          LOG_PRETTY: 'false',
          DB_POOL_SIZE: '16',
          LEDGER_CONSENT_JWKS_URL: h.consent.jwksUrl,
          LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
          LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
          LEDGER_OUTBOX_POLL_MS: '0',
        }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    await until(
      'the ledger healthy',
      async () => (await fetch(`${url}/health`)).ok,
      () => output,
    );

    // The lock of the payer's account, held by another session for the whole test.
    const holder = (await h.admin.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
    await h.admin.query('SELECT pg_advisory_lock($1::bigint)', [uuidLockKey(payer).toString()]);
    try {
      const answers = intents.map((id, i) =>
        fetch(`${url}/v1/internal/intents/${id}/transition`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-service-key': allowedCallerKey('ledger-wallets', 'POST', `/v1/internal/intents/${id}/transition`),
            'x-idempotency-key': keys[i],
          },
          body: JSON.stringify({ toStatus: 'SUCCEEDED', actor: { id: 'user-1' }, executionContext: contextFor(payer, payee, 100 + i) }),
        }).then(
          async (res) => ({
            status: res.status,
            retryAfter: res.headers.get('retry-after'),
            body: (await res.json()) as { code?: string },
          }),
          (error: Error) => ({ status: 0, retryAfter: null, body: { code: `network: ${error.message}` } }),
        ),
      );
      // Every request is inside the ledger: waiting on the lock, queued behind it, or queued for a session.
      await until(
        'the whole burst inside the ledger',
        async () => {
          const lockWaits = await h.admin.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'advisory' AND pid <> $1`,
            [holder],
          );
          const queued = (await gauge(url, 'ledger_group_commit_waiting')) + (await gauge(url, 'ledger_session_queue_waiting'));
          return lockWaits.rows[0].n + queued === BURST;
        },
        () => output,
      );

      child.kill('SIGTERM');
      const code = await exited;
      if (code !== 0 || /graceful shutdown timed out/.test(output)) throw new Error(`exit ${code}:\n${output.slice(-4_000)}`);

      // Answered, every one: refused with the documented 503 (the lock was never free).
      const told = await Promise.all(answers);
      expect(told.map((t) => ({ status: t.status, code: t.body.code, retryAfter: t.retryAfter }))).toEqual(
        Array(BURST).fill({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfter: '1' }),
      );
      const committed = await h.admin.query(`SELECT count(*)::int AS n FROM ledger.transactions WHERE intent_id = ANY($1::uuid[])`, [
        intents,
      ]);
      expect(committed.rows[0].n).toBe(0);
    } finally {
      await h.admin.query('SELECT pg_advisory_unlock($1::bigint)', [uuidLockKey(payer).toString()]);
    }

    // The same requests, same keys, to a running ledger: each executes, once.
    const confirm = (i: number) =>
      h.call(
        'POST',
        `/v1/internal/intents/${intents[i]}/transition`,
        { toStatus: 'SUCCEEDED', actor: { id: 'user-1' }, executionContext: contextFor(payer, payee, 100 + i) },
        { 'x-idempotency-key': keys[i] },
      );
    const retried = await Promise.all(intents.map((_, i) => confirm(i)));
    expect(retried.map((r) => r.status)).toEqual(Array(BURST).fill(200));
    expect((await confirm(0)).headers.get('idempotent-replayed')).toBe('true');
    const txs = await h.admin.query(
      `SELECT count(*)::int AS n, count(DISTINCT intent_id)::int AS d FROM ledger.transactions WHERE intent_id = ANY($1::uuid[])`,
      [intents],
    );
    expect(txs.rows[0]).toEqual({ n: BURST, d: BURST });
    const after = await invariants(h.admin);
    expect(after).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    expect(after.totals).toEqual(before.totals);
  }, 240_000);
});
