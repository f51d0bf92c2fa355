import { uuidLockKey } from '../src/db/lock-keys';
import { metricSum, timingNotes } from './observe';
import { type Harness, balanceOf, contextFor, fundedAccount, intentBody, invariants, startLedger } from './ledger-harness';

/** How many confirms on unrelated accounts queue in the shared lane. */
const QUEUED = 6;

/**
 * Group commit under load (LEDGER_GROUP_COMMIT_TRANSACTIONS,
 * docs/ledger.md "Locks, isolation and retries"): when every slot is taken, the confirms that wait
 * share the next free one's transaction even though no two of them touch the same account, and each
 * is still all-or-nothing on its own terms.
 */
describe('ledger: group commit of unrelated confirms when the ledger is busy', () => {
  let h: Harness;

  beforeAll(async () => {
    // One slot: a confirm in flight makes the next ones wait; the lock wait outlasts the test's hold.
    h = await startLedger({ LEDGER_GROUP_COMMIT_TRANSACTIONS: '1', LEDGER_LOCK_TIMEOUT_MS: '30000', DB_POOL_SIZE: String(QUEUED + 6) });
  });
  afterAll(() => h.close());

  const metric = (name: string) => metricSum(h.app.url, name);

  /** A payer with `funds`, an intent of 100 to a fresh account at PIN_VERIFIED. */
  const readyPair = async (funds: number) => {
    const source = await fundedAccount(h, funds);
    const destination = await fundedAccount(h, 0);
    const created = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, 100));
    expect(created.status).toBe(201);
    const id = created.body.intentId as string;
    const pin = await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } });
    expect(pin.status).toBe(200);
    return { id, source, destination };
  };

  it('commits confirms on unrelated accounts that waited for the slot in one transaction, a refused one writing nothing', async () => {
    const before = await invariants(h.admin);
    const first = await readyPair(1_000);
    // No fee: FEE_COLLECTION would make them all share an account. The one at index 2 sends a
    // context that is not its intent's, refused by its own statement inside the shared transaction.
    const queued = [];
    for (let k = 0; k < QUEUED; k++) queued.push(await readyPair(1_000));

    // The first confirm takes the slot and waits on its source's lock; the others wait for the slot.
    const heldKey = uuidLockKey(first.source).toString();
    await h.admin.query('SELECT pg_advisory_lock($1::bigint)', [heldKey]);
    const grouped0 = await metric('ledger_grouped_operations_total');
    const confirm = (p: { id: string; source: string; destination: string }, amount = 100) =>
      h.call('POST', `/v1/internal/intents/${p.id}/transition`, {
        toStatus: 'SUCCEEDED',
        actor: { id: 'user-1' },
        executionContext: contextFor(p.source, p.destination, amount),
      });
    const firstAnswer = confirm(first);
    const deadline = Date.now() + 20_000;
    const waitFor = async (what: () => Promise<boolean>, why: string) => {
      while (!(await what())) {
        if (Date.now() > deadline) throw new Error(why);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await waitFor(
      async () => (await h.admin.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`)).rows.length >= 1,
      'the first confirm did not wait on its lock',
    );
    const queuedAnswers = queued.map((p, k) => confirm(p, k === 2 ? 99 : 100));
    await waitFor(async () => (await metric('ledger_group_commit_waiting')) >= QUEUED, 'the confirms did not wait for the slot');
    await h.admin.query('SELECT pg_advisory_unlock($1::bigint)', [heldKey]);
    const [a, ...rest] = await Promise.all([firstAnswer, ...queuedAnswers]);

    expect(a.status).toBe(200);
    expect(timingNotes(a.headers.get('server-timing')).group).toBe(1);
    rest.forEach((res, k) => {
      if (k === 2) {
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('EXECUTION_CONTEXT_MISMATCH');
      } else {
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ status: 'SUCCEEDED', fee: 0 });
      }
      // All of them, the refused one included, in the one shared transaction.
      expect(timingNotes(res.headers.get('server-timing')).group).toBe(QUEUED);
    });
    expect((await metric('ledger_grouped_operations_total')) - grouped0).toBe(QUEUED);
    expect(await metric('ledger_group_commit_fallbacks_total')).toBe(0);

    for (const [k, p] of queued.entries()) {
      if (k === 2) {
        expect(await balanceOf(h, p.source)).toMatchObject({ balance: 1_000, availableBalance: 900, frozenBalance: 100 });
        expect((await h.call('GET', `/v1/internal/intents/${p.id}`)).body.status).toBe('PIN_VERIFIED');
      } else {
        expect(await balanceOf(h, p.source)).toMatchObject({ balance: 900, availableBalance: 900, frozenBalance: 0 });
        expect(await balanceOf(h, p.destination)).toMatchObject({ balance: 100 });
      }
    }
    const after = await invariants(h.admin);
    expect(after).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    expect(after.totals).toEqual(before.totals);
  }, 60_000);
});
