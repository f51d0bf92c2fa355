import { randomUUID } from 'node:crypto';
import type { QueryRunner } from 'typeorm';
import { IntentKeysLowerCase1765602100000 } from '../../../migrations/ledger/1765602100000-intent-keys-lower-case';
import { type Harness, contextFor, fundedAccount, intentBody, invariants, startLedger } from './ledger-harness';

const BUSINESS_CODES = new Set(['INSUFFICIENT_BALANCE']);

type Answer = Awaited<ReturnType<Harness['call']>>;

/**
 * Attempts of one request before the test gives up on it. With the waits below (Retry-After times
 * 1, 2, 3, then 4, plus up to 50 % jitter) a request is given up within about 105 s, and the three
 * steps of a transfer within about 5 minutes: inside the test's timeout, so a ledger that never
 * recovers fails the test with its last answer (the `unexpected` check prints status and body)
 * rather than with Jest's timeout, which says nothing about what the ledger answered.
 */
const MAX_ATTEMPTS = 20;

/**
 * Sends one request again, unchanged (same body, same idempotency key), for as long as the ledger
 * answers that nothing was decided: 503, the documented overload answer (docs/ledger.md,
 * "Overload"), which must always say when to come back, or 409 CONCURRENCY_CONFLICT, a transaction
 * that lost its lock waits and was rolled back. How many of these a burst meets depends on the
 * machine, so the test does not count them; it checks that the retries executed once.
 */
async function served(send: () => Promise<Answer>, refusals: Answer[]): Promise<Answer> {
  for (let attempt = 1; ; attempt++) {
    const res = await send();
    const busy = res.status === 503 || (res.status === 409 && res.body?.code === 'CONCURRENCY_CONFLICT');
    // Still busy at the last attempt: that answer is returned, and the test reports it as undecided.
    if (!busy || attempt === MAX_ATTEMPTS) return res;
    if (res.status === 503) refusals.push(res);
    // At least Retry-After, longer after each refusal (with jitter), as a well-behaved client backs off.
    const wait = Number(res.headers.get('retry-after') ?? 1) * 1_000 * Math.min(attempt, 4) * (1 + Math.random() / 2);
    await new Promise((r) => setTimeout(r, wait));
  }
}

/** Create, PIN, confirm, each step with its own idempotency key and retried on 503; the intent id and the last answer. */
async function transferWithRetries(h: Harness, source: string, destination: string, amount: number, fee: number, refusals: Answer[]) {
  const body = intentBody(source, destination, amount, { fee });
  const created = await served(() => h.call('POST', '/v1/internal/intents', body), refusals);
  if (created.status !== 201) return { intentId: undefined, res: created };
  const id = created.body.intentId as string;
  const step = (dto: () => Promise<object> | object) => {
    const key = randomUUID();
    return served(async () => h.call('POST', `/v1/internal/intents/${id}/transition`, await dto(), { 'x-idempotency-key': key }), refusals);
  };
  // The proof auth would issue to the initiator (intentBody's actor), fresh for each try as a client
  // gets one by checking the PIN again (a proof lives a minute); signed here rather than by the
  // harness, which would read the intent first: one more request to be refused under load.
  const pin = await step(async () => ({
    toStatus: 'PIN_VERIFIED',
    actor: { id: 'user-1' },
    consentProof: await h.consent.sign({ sub: 'user-1', intentId: id, step: 'PIN' }),
  }));
  if (pin.status !== 200) return { intentId: id, res: pin };
  const res = await step(() => ({
    toStatus: 'SUCCEEDED',
    actor: { id: 'user-1' },
    executionContext: contextFor(source, destination, amount, fee ? { fee: { amount: fee } } : {}),
  }));
  return { intentId: id, res };
}

describe('ledger: real concurrency and idempotency', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(() => h.close());

  it('200 concurrent transfers among 10 accounts in both directions: each executes once or not at all, every invariant holds', async () => {
    const accounts: string[] = [];
    for (let i = 0; i < 10; i++) accounts.push(await fundedAccount(h, 5_000));
    const before = await invariants(h.admin);

    const refusals: Answer[] = [];
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => {
        const from = accounts[i % 10];
        const to = accounts[(i * 7 + 3) % 10] === from ? accounts[(i + 1) % 10] : accounts[(i * 7 + 3) % 10];
        return transferWithRetries(h, from, to, 100 + (i % 5) * 150, i % 3 === 0 ? 25 : 0, refusals);
      }),
    );
    // Every overload refusal is the documented one: 503 SERVICE_UNAVAILABLE with Retry-After.
    for (const r of refusals)
      expect({ code: r.body?.code, retryAfter: r.headers.get('retry-after') }).toEqual({ code: 'SERVICE_UNAVAILABLE', retryAfter: '1' });
    // Each transfer ends decided: done, or refused for lack of money (never left at a 503 or a 409).
    const unexpected = results.filter(
      ({ res }) => res.status !== 200 && !(res.status >= 400 && res.status < 500 && BUSINESS_CODES.has(res.body?.code)),
    );
    expect(unexpected.map(({ res }) => ({ status: res.status, body: res.body }))).toEqual([]);

    // Exactly once: an answered confirm is one SUCCEEDED intent with one transaction, any other
    // answer left nothing behind, whatever the retries.
    const ids = results.filter((r) => r.intentId).map((r) => r.intentId!);
    const rows = await h.admin.query<{ id: string; status: string; txs: number }>(
      `SELECT i.id, i.status, (SELECT count(*)::int FROM ledger.transactions t WHERE t.intent_id = i.id) AS txs
         FROM ledger.transaction_intents i WHERE i.id = ANY($1::uuid[])`,
      [ids],
    );
    const byId = new Map(rows.rows.map((r) => [r.id, r]));
    expect(byId.size).toBe(ids.length);
    for (const { intentId, res } of results.filter((r) => r.intentId)) {
      const row = byId.get(intentId!)!;
      expect({ status: row.status, txs: row.txs }).toEqual(
        res.status === 200 ? { status: 'SUCCEEDED', txs: 1 } : { status: expect.not.stringMatching(/^SUCCEEDED$/), txs: 0 },
      );
    }
    // How many find their payer funded depends on the order they commit in; none would be a broken path.
    const ok = results.filter(({ res }) => res.status === 200).length;
    expect(ok).toBeGreaterThan(0);

    const after = await invariants(h.admin);
    expect(after).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    expect(after.totals).toEqual(before.totals);
    const negative = await h.admin.query(
      `SELECT count(*)::int AS n FROM ledger.accounts WHERE id = ANY($1::uuid[]) AND (balance < 0 OR available_balance < 0)`,
      [accounts],
    );
    expect(negative.rows[0].n).toBe(0);
    const committed = await h.admin.query(`SELECT count(*)::int AS n FROM ledger.transaction_intents WHERE status = 'SUCCEEDED'`);
    const txs = await h.admin.query(`SELECT count(*)::int AS n FROM ledger.transactions WHERE intent_id IS NOT NULL`);
    expect(txs.rows[0].n).toBe(committed.rows[0].n);
    expect(committed.rows[0].n).toBe(ok);
    // A guard against a hang, not a speed: 9 s on an idle machine, over a minute with the CPU four times oversubscribed.
  }, 420_000);

  it('20 concurrent identical confirmations with one idempotency key execute once and answer identically', async () => {
    const a = await fundedAccount(h, 1_000);
    const b = await fundedAccount(h, 0);
    const created = await h.call('POST', '/v1/internal/intents', intentBody(a, b, 300));
    const id = created.body.intentId;
    await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'u' } });
    const key = randomUUID();
    const body = { toStatus: 'SUCCEEDED', actor: { id: 'u' }, executionContext: contextFor(a, b, 300, { fee: { amount: 10 } }) };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => h.call('POST', `/v1/internal/intents/${id}/transition`, body, { 'x-idempotency-key': key })),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    const first = JSON.stringify(answers[0].body);
    for (const r of answers) expect(JSON.stringify(r.body)).toBe(first);
    expect(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    const txs = await h.admin.query(`SELECT count(*)::int AS n FROM ledger.transactions WHERE intent_id = $1`, [id]);
    expect(txs.rows[0].n).toBe(1);
    const balance = await h.call('GET', `/v1/internal/accounts/${a}`);
    expect(balance.body.balance).toBe(690);

    const other = await h.call(
      'POST',
      `/v1/internal/intents/${id}/transition`,
      { ...body, executionContext: contextFor(a, b, 300, { fee: { amount: 11 } }) },
      { 'x-idempotency-key': key },
    );
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_CONFLICT');
    // A PIN or OTP field never takes part in the hash: same request, same stored answer.
    const again = await h.call(
      'POST',
      `/v1/internal/intents/${id}/transition`,
      { ...body, metadata: undefined },
      { 'x-idempotency-key': key },
    );
    expect(JSON.stringify(again.body)).toBe(first);
  }, 30_000);

  it('20 concurrent identical intent creations create one intent and freeze once', async () => {
    const a = await fundedAccount(h, 1_000);
    const b = await fundedAccount(h, 0);
    const body = intentBody(a, b, 250);
    const answers = await Promise.all(Array.from({ length: 20 }, () => h.call('POST', '/v1/internal/intents', body)));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((r) => JSON.stringify(r.body))).size).toBe(1);
    const frozen = await h.call('GET', `/v1/internal/accounts/${a}`);
    expect(frozen.body).toMatchObject({ availableBalance: 750, frozenBalance: 250 });
    const other = await h.call('POST', '/v1/internal/intents', { ...body, amount: 251 });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_CONFLICT');
  });

  it('the same UUID key in capitals is the same creation: its answer again, frozen once; other terms under it are a conflict', async () => {
    const a = await fundedAccount(h, 1_000);
    const b = await fundedAccount(h, 0);
    const body = intentBody(a, b, 300);
    const first = await h.call('POST', '/v1/internal/intents', body);
    expect(first.status).toBe(201);
    const shouted = { ...body, idempotencyKey: String(body.idempotencyKey).toUpperCase() };
    const again = await h.call('POST', '/v1/internal/intents', shouted);
    expect([again.status, again.body]).toEqual([201, first.body]);
    expect((await h.call('GET', `/v1/internal/accounts/${a}`)).body).toMatchObject({ availableBalance: 700, frozenBalance: 300 });
    const other = await h.call('POST', '/v1/internal/intents', { ...shouted, amount: 301 });
    expect([other.status, other.body.code]).toEqual([422, 'IDEMPOTENCY_KEY_CONFLICT']);
  });

  it('a key stored in capitals before keys were lowered is lowered by the migration: its retry finds its intent', async () => {
    const a = await fundedAccount(h, 1_000);
    const b = await fundedAccount(h, 0);
    const body = intentBody(a, b, 200);
    const first = await h.call('POST', '/v1/internal/intents', body);
    expect(first.status).toBe(201);
    // As a creation stored before the change left it: its key as the client sent it, in capitals.
    const shouted = String(body.idempotencyKey).toUpperCase();
    await h.admin.query(`UPDATE ledger.transaction_intents SET idempotency_key = $2 WHERE id = $1`, [first.body.intentId, shouted]);
    await h.admin.query(`UPDATE ledger.idempotency_keys SET key = $2 WHERE scope = 'intent.create' AND key = $1`, [
      body.idempotencyKey,
      shouted,
    ]);
    await new IntentKeysLowerCase1765602100000().up({ query: (sql: string) => h.admin.query(sql) } as unknown as QueryRunner);
    const again = await h.call('POST', '/v1/internal/intents', { ...body, idempotencyKey: shouted });
    expect([again.status, again.body.intentId]).toEqual([201, first.body.intentId]);
    expect((await h.call('GET', `/v1/internal/accounts/${a}`)).body).toMatchObject({ availableBalance: 800, frozenBalance: 200 });
  });
});
