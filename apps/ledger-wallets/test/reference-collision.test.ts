import { uuidLockKey } from '../src/db/lock-keys';
import { metricSum } from './observe';
import { type Harness, contextFor, fundedAccount, intentBody, invariants, startLedger, transfer } from './ledger-harness';

/**
 * A transaction's reference id is random (7 characters a day), so two transactions can draw the
 * same one: at a million a day that happens a few times a day. The confirm, sent as one prepared
 * call whose stored response and event carry the reference, must then be planned again with a
 * fresh reference rather than replayed as it was (which collides every time and ends in a 409).
 *
 * The collision is made real, not simulated: a trigger on this file's database rewrites the next
 * `n` inserted references into one that is already taken, so the unique constraint refuses them
 * exactly as it would a genuine draw. A sequence counts the draws (it is not rolled back with the
 * refused transaction).
 */
describe('ledger: a transaction reference drawn twice', () => {
  let h: Harness;
  let taken: string;

  beforeAll(async () => {
    h = await startLedger({ LEDGER_LOCK_TIMEOUT_MS: '30000', DB_POOL_SIZE: '12' });
    await h.admin.query(`
      CREATE SEQUENCE public.test_reference_draws;
      CREATE TABLE public.test_reference_collisions (reference text NOT NULL, upto bigint NOT NULL);
      INSERT INTO public.test_reference_collisions VALUES ('', 0);
      CREATE FUNCTION public.test_collide_reference() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
      DECLARE c public.test_reference_collisions%ROWTYPE;
      BEGIN
        SELECT * INTO c FROM public.test_reference_collisions;
        IF nextval('public.test_reference_draws') <= c.upto THEN NEW.reference_id := c.reference; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER test_collide_reference BEFORE INSERT ON ledger.transactions
        FOR EACH ROW EXECUTE FUNCTION public.test_collide_reference();`);
    // A reference that exists: the first transfer's (the trigger is not armed yet).
    const source = await fundedAccount(h, 1_000);
    const first = await transfer(h, source, await fundedAccount(h, 0), 10);
    expect(first.status).toBe(200);
    taken = first.body.referenceId as string;
  });
  afterAll(() => h?.close());

  /** The next `n` inserted transactions get the taken reference. */
  async function collideNext(n: number): Promise<void> {
    await h.admin.query(`SELECT setval('public.test_reference_draws', 1, false)`);
    await h.admin.query(`UPDATE public.test_reference_collisions SET reference = $1, upto = $2`, [taken, n]);
  }

  const redraws = () => metricSum(h.app.url, 'ledger_reference_redraws_total');

  async function readyIntent(source: string, destination: string, amount: number): Promise<string> {
    const created = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, amount));
    expect(created.status).toBe(201);
    const id = created.body.intentId as string;
    expect(
      (await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } })).status,
    ).toBe(200);
    return id;
  }

  const confirm = (id: string, source: string, destination: string, amount: number, headers: Record<string, string> = {}) =>
    h.call(
      'POST',
      `/v1/internal/intents/${id}/transition`,
      { toStatus: 'SUCCEEDED', actor: { id: 'user-1' }, executionContext: contextFor(source, destination, amount) },
      headers,
    );

  /** The committed transaction of an intent, with the reference its event and row carry. */
  async function committed(id: string): Promise<{ count: number; reference: string; eventReference: string }> {
    const { rows } = await h.admin.query(
      `SELECT count(*) OVER ()::int AS count, t.reference_id AS reference, o.payload->>'referenceId' AS event_reference
         FROM ledger.transactions t JOIN ledger.outbox o ON o.aggregate_id = t.id WHERE t.intent_id = $1`,
      [id],
    );
    return { count: rows[0]?.count ?? 0, reference: rows[0]?.reference, eventReference: rows[0]?.event_reference };
  }

  it('a confirm whose reference is taken commits once, with a fresh reference that its answer and event carry', async () => {
    const source = await fundedAccount(h, 1_000);
    const destination = await fundedAccount(h, 0);
    const id = await readyIntent(source, destination, 100);
    const before = await redraws();
    await collideNext(1);

    const res = await confirm(id, source, destination, 100);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'SUCCEEDED' });
    expect(res.body.referenceId).not.toBe(taken);
    expect(await committed(id)).toEqual({ count: 1, reference: res.body.referenceId, eventReference: res.body.referenceId });
    expect((await redraws()) - before).toBe(1);
    expect((await h.call('GET', `/v1/internal/accounts/${destination}`)).body.balance).toBe(100);
  });

  it('with an idempotency key: two taken draws, then the stored answer is the committed one', async () => {
    const source = await fundedAccount(h, 1_000);
    const destination = await fundedAccount(h, 0);
    const id = await readyIntent(source, destination, 100);
    const before = await redraws();
    await collideNext(2);

    const key = { 'x-idempotency-key': `confirm:${id}` };
    const res = await confirm(id, source, destination, 100, key);
    expect(res.status).toBe(200);
    expect((await redraws()) - before).toBe(2);
    const row = await committed(id);
    expect(row).toEqual({ count: 1, reference: res.body.referenceId, eventReference: res.body.referenceId });

    const again = await confirm(id, source, destination, 100, key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(res.body));
    expect((await h.call('GET', `/v1/internal/accounts/${source}`)).body).toMatchObject({ balance: 900, frozenBalance: 0 });
  });

  it('three taken draws in a row: 409 CONCURRENCY_CONFLICT with nothing written, and the next try commits', async () => {
    const source = await fundedAccount(h, 1_000);
    const destination = await fundedAccount(h, 0);
    const id = await readyIntent(source, destination, 100);
    await collideNext(3);

    const refused = await confirm(id, source, destination, 100);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('CONCURRENCY_CONFLICT');
    expect((await committed(id)).count).toBe(0);
    expect((await h.call('GET', `/v1/internal/intents/${id}`)).body.status).toBe('PIN_VERIFIED');
    expect((await h.call('GET', `/v1/internal/accounts/${source}`)).body).toMatchObject({ balance: 1_000, frozenBalance: 100 });

    const res = await confirm(id, source, destination, 100);
    expect(res.status).toBe(200);
    expect((await committed(id)).count).toBe(1);
  });

  it('confirms queued on a hot merchant while a reference is taken: each commits once, with its own reference', async () => {
    const merchant = await fundedAccount(h, 0, 'XAF', 'MERCHANT');
    const before = await invariants(h.admin);
    const fallbacks = () => metricSum(h.app.url, 'ledger_group_commit_fallbacks_total');
    const [redraws0, fallbacks0] = [await redraws(), await fallbacks()];
    const payers: { id: string; source: string }[] = [];
    for (let k = 0; k < 6; k++) {
      const source = await fundedAccount(h, 1_000);
      payers.push({ id: await readyIntent(source, merchant, 100), source });
    }
    // The confirms queue behind the merchant's lock, so they share a transaction once it is free.
    const merchantKey = uuidLockKey(merchant).toString();
    await h.admin.query('SELECT pg_advisory_lock($1::bigint)', [merchantKey]);
    await collideNext(1);
    const answers = payers.map((p) => confirm(p.id, p.source, merchant, 100));
    const deadline = Date.now() + 20_000;
    while ((await metricSum(h.app.url, 'ledger_group_commit_waiting')) < 4) {
      if (Date.now() > deadline) throw new Error('the confirms did not queue behind the merchant');
      await new Promise((r) => setTimeout(r, 50));
    }
    await h.admin.query('SELECT pg_advisory_unlock($1::bigint)', [merchantKey]);
    const results = await Promise.all(answers);

    for (const res of results) expect({ status: res.status, code: res.body.code }).toEqual({ status: 200, code: undefined });
    const references = results.map((r) => r.body.referenceId as string);
    expect(new Set(references).size).toBe(payers.length);
    expect(references).not.toContain(taken);
    for (const [k, p] of payers.entries()) {
      expect(await committed(p.id)).toEqual({ count: 1, reference: references[k], eventReference: references[k] });
    }
    // The taken draw was met once: by a confirm running alone (planned again) or by a shared
    // transaction (refused whole, its confirms then run alone with the references they drew).
    expect((await redraws()) - redraws0 + ((await fallbacks()) - fallbacks0)).toBe(1);
    expect((await h.call('GET', `/v1/internal/accounts/${merchant}`)).body.balance).toBe(100 * payers.length);
    const after = await invariants(h.admin);
    expect(after).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    expect(after.totals).toEqual(before.totals);
  });
});
