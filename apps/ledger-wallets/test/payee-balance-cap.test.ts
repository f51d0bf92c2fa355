import { uuidLockKey } from '../src/db/lock-keys';
import { metricSum } from './observe';
import {
  type Harness,
  balanceOf,
  contextFor,
  fundedAccount,
  intentBody,
  invariants,
  pinVerifiedIntent,
  startLedger,
  transfer,
} from './ledger-harness';

/**
 * The payee's balance cap (docs/ledger.md, "Balance cap"): the orchestrator sends the most the
 * destination's balance may reach; the create refuses early when it is already out of reach, and the
 * confirm refuses, on the destination row it holds locked, when this credit would pass it. The confirm
 * is the binding check: concurrent credits to one account cannot pass the cap together, alone or in a
 * group commit's batch.
 */
describe('ledger: the payee balance cap', () => {
  let h: Harness;

  beforeAll(async () => {
    // The batch case holds the merchant's lock while its confirms queue.
    h = await startLedger({ LEDGER_LOCK_TIMEOUT_MS: '30000', DB_POOL_SIZE: '12' });
  });
  afterAll(() => h.close());

  const confirm = (id: string, source: string, destination: string, amount: number, extra: Record<string, unknown> = {}, key?: string) =>
    h.call(
      'POST',
      `/v1/internal/intents/${id}/transition`,
      { toStatus: 'SUCCEEDED', actor: { id: 'user-1' }, executionContext: contextFor(source, destination, amount, extra) },
      key ? { 'x-idempotency-key': key } : {},
    );

  it('refuses at creation an intent whose credit cannot fit, holding nothing; an exact fit or no cap is created', async () => {
    const payer = await fundedAccount(h, 10_000);
    const payee = await fundedAccount(h, 4_000);

    const refused = await h.call('POST', '/v1/internal/intents', intentBody(payer, payee, 1_001, { payeeBalanceCap: 5_000 }));
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('LIMIT_BALANCE_CAP_EXCEEDED');
    expect(await balanceOf(h, payer)).toMatchObject({ balance: 10_000, availableBalance: 10_000, frozenBalance: 0 });
    const intents = await h.admin.query(`SELECT count(*)::int AS n FROM ledger.transaction_intents WHERE source_account_id = $1`, [payer]);
    expect(intents.rows[0].n).toBe(0);

    const exact = await h.call('POST', '/v1/internal/intents', intentBody(payer, payee, 1_000, { payeeBalanceCap: 5_000 }));
    expect(exact.status).toBe(201);
    const uncapped = await h.call('POST', '/v1/internal/intents', intentBody(payer, payee, 8_000));
    expect(uncapped.status).toBe(201);
    // Creation holds nothing on the payee's side: both fit the payer's purse and were created.
    expect(await balanceOf(h, payer)).toMatchObject({ balance: 10_000, availableBalance: 1_000, frozenBalance: 9_000 });
  });

  it('refuses a confirm whose credit would pass the cap, writing nothing; the same confirm passes once the balance fell', async () => {
    const payer = await fundedAccount(h, 10_000);
    const payee = await fundedAccount(h, 0, 'XAF', 'MERCHANT');
    const id = await pinVerifiedIntent(h, payer, payee, 3_000);
    // Meanwhile another payment reached the payee: 3,000 more would make 5,000, above 4,000.
    expect((await transfer(h, await fundedAccount(h, 2_000), payee, 2_000)).status).toBe(200);
    const before = await invariants(h.admin);

    const key = `cap-confirm-${id}`;
    const refused = await confirm(id, payer, payee, 3_000, { payeeBalanceCap: 4_000 }, key);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('LIMIT_BALANCE_CAP_EXCEEDED');
    // Nothing moved, the hold stays, the intent can still be confirmed.
    expect((await h.call('GET', `/v1/internal/intents/${id}`)).body.status).toBe('PIN_VERIFIED');
    expect(await balanceOf(h, payer)).toMatchObject({ balance: 10_000, frozenBalance: 3_000 });
    expect(await balanceOf(h, payee)).toMatchObject({ balance: 2_000 });
    expect((await invariants(h.admin)).totals).toEqual(before.totals);

    // The payee spends 1,000: 1,000 + 3,000 fits the cap; the same key may be used again (a refusal is not stored).
    expect((await transfer(h, payee, await fundedAccount(h, 0), 1_000)).status).toBe(200);
    const done = await confirm(id, payer, payee, 3_000, { payeeBalanceCap: 4_000 }, key);
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('SUCCEEDED');
    expect(await balanceOf(h, payee)).toMatchObject({ balance: 4_000 });

    // Replayed with its key: the stored answer, byte for byte, whatever the cap says now.
    const replay = await confirm(id, payer, payee, 3_000, { payeeBalanceCap: 4_000 }, key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(JSON.stringify(replay.body)).toBe(JSON.stringify(done.body));
  });

  it('lets exactly one of two concurrent confirms to one capped account pass when each fits alone and both do not', async () => {
    const payee = await fundedAccount(h, 0);
    const payers = [await fundedAccount(h, 1_000), await fundedAccount(h, 1_000)];
    const ids = [await pinVerifiedIntent(h, payers[0], payee, 600), await pinVerifiedIntent(h, payers[1], payee, 600)];
    const before = await invariants(h.admin);

    const answers = await Promise.all(ids.map((id, k) => confirm(id, payers[k], payee, 600, { payeeBalanceCap: 1_000 })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 422]);
    expect(answers.find((r) => r.status === 422)!.body.code).toBe('LIMIT_BALANCE_CAP_EXCEEDED');
    expect(await balanceOf(h, payee)).toMatchObject({ balance: 600 });
    const after = await invariants(h.admin);
    expect(after).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    expect(after.totals).toEqual(before.totals);
  });

  it('holds the cap across the confirms of one group commit batch; a refused one does not fail the others', async () => {
    const merchant = await fundedAccount(h, 0, 'XAF', 'MERCHANT');
    const PAYERS = 6;
    const payers: { id: string; source: string }[] = [];
    for (let k = 0; k < PAYERS; k++) {
      const source = await fundedAccount(h, 1_000);
      payers.push({ id: await pinVerifiedIntent(h, source, merchant, 100), source });
    }
    const before = await invariants(h.admin);
    const grouped0 = await metricSum(h.app.url, 'ledger_grouped_operations_total');

    // The merchant's lock held: the first confirm waits on it alone, the second alone behind it, the
    // others queue and run as one batch once it is released.
    const merchantKey = uuidLockKey(merchant).toString();
    await h.admin.query('SELECT pg_advisory_lock($1::bigint)', [merchantKey]);
    // Room for three payments of 100.
    const answers = payers.map((p) => confirm(p.id, p.source, merchant, 100, { payeeBalanceCap: 350 }));
    const deadline = Date.now() + 20_000;
    while ((await metricSum(h.app.url, 'ledger_group_commit_waiting')) < PAYERS - 2) {
      if (Date.now() > deadline) throw new Error('the confirms did not queue behind the merchant');
      await new Promise((r) => setTimeout(r, 50));
    }
    // The clock first, then the unlock: read in the unlock's own statement, the clock could come
    // after a woken confirm had already taken the lock and read its time (CI, a loaded machine:
    // 4 ms later). Read before, it is still after every confirm had queued.
    const [{ released }] = (await h.admin.query<{ released: Date }>('SELECT clock_timestamp() AS released')).rows;
    await h.admin.query('SELECT pg_advisory_unlock($1::bigint)', [merchantKey]);
    const results = await Promise.all(answers);

    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 422, 422, 422]);
    for (const r of results.filter((x) => x.status === 422)) expect(r.body.code).toBe('LIMIT_BALANCE_CAP_EXCEEDED');
    expect((await metricSum(h.app.url, 'ledger_grouped_operations_total')) - grouped0).toBeGreaterThanOrEqual(PAYERS - 2);
    expect(await balanceOf(h, merchant)).toMatchObject({ balance: 300 });
    const after = await invariants(h.admin);
    expect(after).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    expect(after.totals).toEqual(before.totals);

    // The transaction's time is the database's once the confirm held its locks, not the time the
    // request was planned (before it waited on the merchant): the response, the row and the event agree.
    for (const r of results.filter((x) => x.status === 200)) {
      const row = await h.admin.query<{ completed_at: Date; occurred: string }>(
        `SELECT t.completed_at, o.payload ->> 'occurredAt' AS occurred FROM ledger.transactions t JOIN ledger.outbox o ON o.aggregate_id = t.id
          WHERE t.id = $1`,
        [r.body.transactionId],
      );
      expect(row.rows[0].completed_at.getTime()).toBeGreaterThanOrEqual(new Date(released).getTime() - 1);
      expect(r.body.updatedAt).toBe(row.rows[0].completed_at.toISOString());
      expect(row.rows[0].occurred).toBe(r.body.updatedAt);
    }
  }, 60_000);

  it('without a cap confirms as before, and credits the default fee and commission accounts when the context names none', async () => {
    const customer = await fundedAccount(h, 10_000);
    const agentWallet = await h.call('POST', '/v1/internal/wallets', { ownerType: 'AGENT', ownerId: 'agent-cap', currencies: ['XAF'] });
    const accountOf = (type: string) => agentWallet.body.accounts.find((x: { accountType: string }) => x.accountType === type).id as string;
    const technical = (await h.call('GET', '/v1/internal/technical-accounts?currency=XAF')).body as { id: string; accountType: string }[];
    const fees = technical.find((a) => a.accountType === 'fee_collection')!.id;
    const treasury = technical.find((a) => a.accountType === 'treasury')!.id;
    const feesBefore = (await balanceOf(h, fees)).balance;
    const treasuryBefore = (await balanceOf(h, treasury)).balance;

    const created = await h.call(
      'POST',
      '/v1/internal/intents',
      intentBody(customer, accountOf('agent'), 9_000, { type: 'CASH_OUT', fee: 100 }),
    );
    expect(created.status).toBe(201);
    const id = created.body.intentId as string;
    expect(
      (await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } })).status,
    ).toBe(200);
    const done = await confirm(id, customer, accountOf('agent'), 9_000, {
      fee: { amount: 100 },
      commission: { amount: 40, accountId: accountOf('agent_commission') },
    });
    expect(done.status).toBe(200);
    expect((await balanceOf(h, fees)).balance).toBe(feesBefore + 100);
    expect((await balanceOf(h, treasury)).balance).toBe(treasuryBefore - 40);
    expect(await balanceOf(h, accountOf('agent_commission'))).toMatchObject({ balance: 40 });
    expect(await balanceOf(h, accountOf('agent'))).toMatchObject({ balance: 9_000 });
  });
});
