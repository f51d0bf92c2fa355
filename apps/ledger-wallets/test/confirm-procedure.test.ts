import { uuidLockKey } from '../src/db/lock-keys';
import { type Harness, balanceOf, contextFor, fundedAccount, intentBody, invariants, startLedger } from './ledger-harness';

/**
 * The confirm alone is one `CALL ledger.confirm_checked`
 * (docs/ledger.md "Locks, isolation and retries": locks, COMMIT, SERIALIZABLE transaction, COMMIT,
 * release inside the procedure). What the callers rely on when it fails part way: nothing is
 * written, no advisory lock stays with a pooled connection, the usual replays and 409 happen, and
 * the next attempt commits exactly once.
 */
describe('ledger: the confirm procedure', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startLedger({ LEDGER_LOCK_TIMEOUT_MS: '150', LEDGER_RETRY_DELAYS_MS: '10,10' });
  });
  afterAll(() => h.close());

  const advisoryLocksOfLedger = async (): Promise<number> =>
    (
      await h.admin.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE l.locktype = 'advisory' AND a.datname = current_database() AND l.pid <> pg_backend_pid()`,
      )
    ).rows[0].n;

  it('gives up with 409 on a held account lock, writing nothing and keeping no lock, then commits once', async () => {
    const source = await fundedAccount(h, 1_000);
    const destination = await fundedAccount(h, 0);
    const created = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, 300));
    const id = created.body.intentId as string;
    expect(
      (await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } })).status,
    ).toBe(200);
    const before = await invariants(h.admin);
    const confirm = { toStatus: 'SUCCEEDED', actor: { id: 'user-1' }, executionContext: contextFor(source, destination, 300) };
    const key = { 'x-idempotency-key': `confirm:${id}` };

    // Someone else holds the destination's lock: the procedure's lock wait times out on every attempt.
    const destinationKey = uuidLockKey(destination).toString();
    await h.admin.query('SELECT pg_advisory_lock($1::bigint)', [destinationKey]);
    const refused = await h.call('POST', `/v1/internal/intents/${id}/transition`, confirm, key);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('CONCURRENCY_CONFLICT');
    expect(await advisoryLocksOfLedger()).toBe(0);
    expect((await h.call('GET', `/v1/internal/intents/${id}`)).body.status).toBe('PIN_VERIFIED');
    expect(await balanceOf(h, source)).toMatchObject({ balance: 1_000, availableBalance: 700, frozenBalance: 300 });
    expect(await balanceOf(h, destination)).toMatchObject({ balance: 0, availableBalance: 0, frozenBalance: 0 });
    const { rows: none } = await h.admin.query('SELECT 1 FROM ledger.transactions WHERE intent_id = $1', [id]);
    expect(none).toHaveLength(0);

    // Released: the same request commits, once, and its stored answer is what a replay gets.
    await h.admin.query('SELECT pg_advisory_unlock($1::bigint)', [destinationKey]);
    const done = await h.call('POST', `/v1/internal/intents/${id}/transition`, confirm, key);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'SUCCEEDED', transactionId: expect.any(String) });
    expect(await advisoryLocksOfLedger()).toBe(0);
    const replay = await h.call('POST', `/v1/internal/intents/${id}/transition`, confirm, key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(done.body);
    expect(await balanceOf(h, source)).toMatchObject({ balance: 700, availableBalance: 700, frozenBalance: 0 });
    expect(await balanceOf(h, destination)).toMatchObject({ balance: 300, availableBalance: 300, frozenBalance: 0 });
    const { rows: one } = await h.admin.query('SELECT 1 FROM ledger.transactions WHERE intent_id = $1', [id]);
    expect(one).toHaveLength(1);
    const after = await invariants(h.admin);
    expect(after.ledgerGaps).toBe(0);
    expect(after.unbalancedTransactions).toBe(0);
    expect(after.totals).toEqual(before.totals);
  });

  it('answers a refusal found on the locked rows without writing or keeping a lock', async () => {
    const source = await fundedAccount(h, 500);
    const destination = await fundedAccount(h, 0);
    const created = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, 400));
    const id = created.body.intentId as string;
    expect(
      (await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } })).status,
    ).toBe(200);
    // A fee added at confirm time that the source cannot pay: the procedure's check refuses it.
    const res = await h.call('POST', `/v1/internal/intents/${id}/transition`, {
      toStatus: 'SUCCEEDED',
      actor: { id: 'user-1' },
      executionContext: contextFor(source, destination, 400, { fee: { amount: 200 } }),
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('INSUFFICIENT_BALANCE');
    expect(await advisoryLocksOfLedger()).toBe(0);
    expect((await h.call('GET', `/v1/internal/intents/${id}`)).body.status).toBe('PIN_VERIFIED');
    expect(await balanceOf(h, source)).toMatchObject({ balance: 500, availableBalance: 100, frozenBalance: 400 });
  });
});
