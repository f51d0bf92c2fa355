import { uuidLockKey } from '../src/db/lock-keys';
import { metricSum, timingNotes } from './observe';
import { type Harness, contextFor, fundedAccount, invariants, pinVerifiedIntent, startLedger } from './ledger-harness';

const GROUPED = 8;

/**
 * Group commit on hot accounts (docs/ledger.md "Locks, isolation and retries"): confirms queued
 * behind a busy account commit together, and still each on its own terms: a refused one writes
 * nothing, the others commit, the idempotent one stores its answer, every invariant holds.
 */
describe('ledger: group commit on a hot merchant account', () => {
  let h: Harness;

  beforeAll(async () => {
    // The test holds the merchant's lock while the confirms queue: the lock wait must outlast it,
    // and every waiting confirm keeps its pooled connection (as it would waiting on the lock).
    h = await startLedger({ LEDGER_LOCK_TIMEOUT_MS: '30000', DB_POOL_SIZE: String(GROUPED + 4) });
  });
  afterAll(() => h.close());

  const metric = (name: string, labels?: Record<string, string>) => metricSum(h.app.url, name, labels);

  /** Every invariant holds, no money appeared or vanished since `before`, and no advisory lock is left. */
  async function expectSoundLedger(before: Awaited<ReturnType<typeof invariants>>): Promise<void> {
    const after = await invariants(h.admin);
    expect(after).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    expect(after.totals).toEqual(before.totals);
    const locks = await h.admin.query(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    expect(locks.rows[0].n).toBe(0);
  }

  it('commits the confirms queued on one merchant in one transaction, each all-or-nothing', async () => {
    const merchant = await fundedAccount(h, 0, 'XAF', 'MERCHANT');
    const fees = (await h.call('GET', '/v1/internal/technical-accounts?currency=XAF')).body.find(
      (a: { accountType: string }) => a.accountType === 'fee_collection',
    ).id as string;
    const feesBefore = (await h.call('GET', `/v1/internal/accounts/${fees}`)).body.balance as number;
    const before = await invariants(h.admin);

    // GROUPED + 2 customers paying the merchant 100 with a fee of 10; the one at index 4 holds only
    // the amount, so its confirm (fee 10 added at confirm time) cannot be paid.
    const payers: { id: string; source: string; poor: boolean }[] = [];
    for (let k = 0; k < GROUPED + 2; k++) {
      const poor = k === 4;
      const source = await fundedAccount(h, poor ? 100 : 1_000);
      payers.push({ id: await pinVerifiedIntent(h, source, merchant, 100), source, poor });
    }

    // Hold the merchant's advisory lock: the first confirm runs alone and waits on it, the second
    // starts the merchant's queue (alone too), every later one queues behind them.
    const merchantKey = uuidLockKey(merchant).toString();
    await h.admin.query('SELECT pg_advisory_lock($1::bigint)', [merchantKey]);
    const grouped0 = await metric('ledger_grouped_operations_total');
    const confirms = payers.map((p, k) =>
      h.call(
        'POST',
        `/v1/internal/intents/${p.id}/transition`,
        { toStatus: 'SUCCEEDED', actor: { id: 'user-1' }, executionContext: contextFor(p.source, merchant, 100, { fee: { amount: 10 } }) },
        k === 6 ? { 'x-idempotency-key': `confirm:${p.id}` } : {},
      ),
    );
    const deadline = Date.now() + 20_000;
    while ((await metric('ledger_group_commit_waiting')) < GROUPED) {
      if (Date.now() > deadline) throw new Error('the confirms did not queue behind the merchant');
      await new Promise((r) => setTimeout(r, 50));
    }
    await h.admin.query('SELECT pg_advisory_unlock($1::bigint)', [merchantKey]);
    const answers = await Promise.all(confirms);

    const poor = payers.findIndex((p) => p.poor);
    answers.forEach((res, k) => {
      if (k === poor) {
        expect(res.status).toBe(422);
        expect(res.body.code).toBe('INSUFFICIENT_BALANCE');
      } else {
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ status: 'SUCCEEDED', fee: 10 });
      }
    });
    // The queued ones shared one transaction (the refused one included: it wrote nothing in it).
    expect(answers.filter((r) => (timingNotes(r.headers.get('server-timing')).group ?? 0) === GROUPED)).toHaveLength(GROUPED);
    expect((await metric('ledger_grouped_operations_total')) - grouped0).toBe(GROUPED);

    const paid = GROUPED + 1;
    expect((await h.call('GET', `/v1/internal/accounts/${merchant}`)).body.balance).toBe(100 * paid);
    expect((await h.call('GET', `/v1/internal/accounts/${fees}`)).body.balance).toBe(feesBefore + 10 * paid);
    const refused = await h.call('GET', `/v1/internal/intents/${payers[poor].id}`);
    expect(refused.body.status).toBe('PIN_VERIFIED');
    expect(await h.call('GET', `/v1/internal/accounts/${payers[poor].source}`).then((r) => r.body)).toMatchObject({
      balance: 100,
      frozenBalance: 100,
    });

    // The idempotent one stored its answer in the shared transaction: a retry gets the same bytes.
    const again = await h.call(
      'POST',
      `/v1/internal/intents/${payers[6].id}/transition`,
      {
        toStatus: 'SUCCEEDED',
        actor: { id: 'user-1' },
        executionContext: contextFor(payers[6].source, merchant, 100, { fee: { amount: 10 } }),
      },
      { 'x-idempotency-key': `confirm:${payers[6].id}` },
    );
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(answers[6].body));

    await expectSoundLedger(before);
  }, 60_000);

  it('rolls a whole batch back when one call fails mid-pipeline, then runs each confirm alone', async () => {
    const merchant = await fundedAccount(h, 0, 'XAF', 'MERCHANT');
    const before = await invariants(h.admin);
    const payers: { id: string; source: string }[] = [];
    for (let k = 0; k < GROUPED + 2; k++) {
      const source = await fundedAccount(h, 1_000);
      payers.push({ id: await pinVerifiedIntent(h, source, merchant, 100), source });
    }
    // One call fails in the database (a statement error, as a bug or a broken row would raise),
    // after the calls before it in the same transaction have run, with calls behind it.
    const broken = payers[5].id;
    await h.admin.query(`
      CREATE FUNCTION ledger.test_refuse_one() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.intent_id = '${broken}'::uuid AND NEW.to_status = 'SUCCEEDED' THEN RAISE EXCEPTION 'test: refused'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER trg_test_refuse_one BEFORE INSERT ON ledger.intent_events FOR EACH ROW EXECUTE FUNCTION ledger.test_refuse_one()`);
    try {
      const merchantKey = uuidLockKey(merchant).toString();
      await h.admin.query('SELECT pg_advisory_lock($1::bigint)', [merchantKey]);
      const fallbacks0 = await metric('ledger_group_commit_fallbacks_total', { sqlstate: 'P0001' });
      const confirm = (p: { id: string; source: string }) =>
        h.call('POST', `/v1/internal/intents/${p.id}/transition`, {
          toStatus: 'SUCCEEDED',
          actor: { id: 'user-1' },
          executionContext: contextFor(p.source, merchant, 100),
        });
      const until = async (what: string, done: () => Promise<boolean>) => {
        const deadline = Date.now() + 20_000;
        while (!(await done())) {
          if (Date.now() > deadline) throw new Error(what);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      // One at a time, so the batch holds them in this order: the first two run alone and wait on
      // the merchant's lock, the eight others queue behind them, the broken one fourth.
      const confirms = [confirm(payers[0]), confirm(payers[1])];
      await until('the first two confirms did not wait on the merchant', async () => {
        const waiting = await h.admin.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        );
        return waiting.rows[0].n === 2;
      });
      for (const [k, p] of payers.slice(2).entries()) {
        confirms.push(confirm(p));
        await until('a confirm did not queue behind the merchant', async () => (await metric('ledger_group_commit_waiting')) === k + 1);
      }
      await h.admin.query('SELECT pg_advisory_unlock($1::bigint)', [merchantKey]);
      const answers = await Promise.all(confirms);

      // The queued ones failed together on the broken call's error, nothing of theirs committed,
      // and then ran alone: every one but the broken one paid, each once.
      expect((await metric('ledger_group_commit_fallbacks_total', { sqlstate: 'P0001' })) - fallbacks0).toBe(GROUPED);
      answers.forEach((res, k) => expect(res.status).toBe(payers[k].id === broken ? 500 : 200));
      expect((await h.call('GET', `/v1/internal/intents/${broken}`)).body.status).toBe('PIN_VERIFIED');
      expect((await h.call('GET', `/v1/internal/accounts/${merchant}`)).body.balance).toBe(100 * (GROUPED + 1));
      const { rows } = await h.admin.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ledger.transactions WHERE intent_id = ANY($1::uuid[])`,
        [payers.map((p) => p.id)],
      );
      expect(rows[0].n).toBe(GROUPED + 1);
    } finally {
      await h.admin.query('DROP TRIGGER trg_test_refuse_one ON ledger.intent_events; DROP FUNCTION ledger.test_refuse_one()');
    }
    await expectSoundLedger(before);
  }, 60_000);
});
