/**
 * Overload, made deterministic: a session holding an account's advisory lock (as a long money
 * transaction would) keeps the ledger's only admitted session busy, so the next request waits in
 * the admission queue and the one after finds the queue full. What a caller relies on: the refusal
 * is immediate, a 503 with Retry-After, nothing of it was done; the health check still answers;
 * and the same request retried with the same key executes exactly once.
 */
import { randomUUID } from 'node:crypto';
import { uuidLockKey } from '../src/db/lock-keys';
import { AT_CAPACITY } from '../src/db/session-gate';
import { type Harness, contextFor, fundedAccount, invariants, pinVerifiedIntent, startLedger } from './ledger-harness';

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  // A bound for a hang, not a speed: each check is a real observation of the ledger.
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never observed: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function metric(h: Harness, name: string): Promise<number> {
  const text = await (await fetch(`${h.app.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

describe('ledger overload: a bounded queue, then 503 with Retry-After', () => {
  let h: Harness;

  beforeAll(async () => {
    // DB_POOL_SIZE 2: one admitted session, one connection kept for health and reads.
    h = await startLedger({
      DB_POOL_SIZE: '2',
      LEDGER_SESSION_QUEUE_LIMIT: '1',
      LEDGER_SESSION_WAIT_MS: '120000',
      LEDGER_LOCK_TIMEOUT_MS: '120000',
    });
  });
  afterAll(() => h.close());

  it('refuses beyond the queue at once and untouched, keeps /health up, and the retry with the same key executes once', async () => {
    const payer = await fundedAccount(h, 10_000);
    const payee = await fundedAccount(h, 0);
    const intents = [await pinVerifiedIntent(h, payer, payee, 100), await pinVerifiedIntent(h, payer, payee, 200)];
    intents.push(await pinVerifiedIntent(h, payer, payee, 300));
    const keys = intents.map(() => randomUUID());
    const confirm = (i: number) =>
      h.call(
        'POST',
        `/v1/internal/intents/${intents[i]}/transition`,
        { toStatus: 'SUCCEEDED', actor: { id: 'user-1' }, executionContext: contextFor(payer, payee, [100, 200, 300][i]) },
        { 'x-idempotency-key': keys[i] },
      );
    const before = await invariants(h.admin);

    // Another session holds the payer's lock: the first confirm is admitted and waits for it.
    const holder = await h.admin.query('SELECT pg_backend_pid() AS pid');
    await h.admin.query('SELECT pg_advisory_lock($1::bigint)', [uuidLockKey(payer).toString()]);
    const first = confirm(0);
    await until('the first confirm waiting on the lock', async () => {
      const r = await h.admin.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'advisory' AND pid <> $1`,
        [holder.rows[0].pid],
      );
      return r.rows[0].n === 1;
    });
    const second = confirm(1);
    await until('the second confirm queued for a session', async () => (await metric(h, 'ledger_session_queue_waiting')) === 1);

    const third = await confirm(2);
    expect({
      status: third.status,
      code: third.body.code,
      message: third.body.message,
      retryAfter: third.headers.get('retry-after'),
    }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE', message: AT_CAPACITY, retryAfter: '1' });
    const untouched = await h.admin.query(
      `SELECT status, (SELECT count(*)::int FROM ledger.transactions WHERE intent_id = $1) AS txs FROM ledger.transaction_intents WHERE id = $1`,
      [intents[2]],
    );
    expect(untouched.rows[0]).toEqual({ status: 'PIN_VERIFIED', txs: 0 });
    // The connection kept outside the gate answers the health check in the middle of the burst.
    const health = await fetch(`${h.app.url}/health`);
    expect(health.status).toBe(200);

    await h.admin.query('SELECT pg_advisory_unlock($1::bigint)', [uuidLockKey(payer).toString()]);
    expect((await Promise.all([first, second])).map((r) => r.status)).toEqual([200, 200]);

    const retried = await confirm(2);
    const replayed = await confirm(2);
    expect([retried.status, replayed.status]).toEqual([200, 200]);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    const txs = await h.admin.query(
      `SELECT intent_id, count(*)::int AS n FROM ledger.transactions WHERE intent_id = ANY($1::uuid[]) GROUP BY 1`,
      [intents],
    );
    expect(txs.rows.map((r) => r.n)).toEqual([1, 1, 1]);
    expect((await h.call('GET', `/v1/internal/accounts/${payee}`)).body.balance).toBe(600);
    const after = await invariants(h.admin);
    expect(after).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    expect(after.totals).toEqual(before.totals);
    expect(await metric(h, 'ledger_session_refused_total{reason="queue_full"}')).toBe(1);
  }, 120_000);
});
