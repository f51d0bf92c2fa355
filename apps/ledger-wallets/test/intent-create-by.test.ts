import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { type Harness, balanceOf, fundedAccount, intentBody, startLedger } from './ledger-harness';

/**
 * `createBy` on creation: the latest time the ledger may still create an intent (the orchestrator
 * sends a withdrawal code's expiry). A first creation after it is refused and holds nothing; a
 * creation that happened in time still replays its stored 201 under the same key and body, however
 * late the replay — the idempotency layer answers before the deadline is looked at.
 */
describe('ledger: a deadline for creating an intent (createBy)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(() => h?.close());

  const intentsOf = async (key: unknown) =>
    (await h.admin.query(`SELECT id, status FROM ledger.transaction_intents WHERE idempotency_key = $1`, [key])).rows;

  it('created in time, replayed after the deadline: the same 201 and the same intent; a new creation then is refused', async () => {
    const source = await fundedAccount(h, 10_000);
    const destination = await fundedAccount(h, 0);
    // Far enough ahead that the first request lands before it even on a loaded machine.
    const createBy = new Date(Date.now() + 4_000).toISOString();
    const body = intentBody(source, destination, 1_000, { fee: 50, createBy });
    const created = await h.call('POST', '/v1/internal/intents', body);
    expect(created.status).toBe(201);
    // createBy does not end the intent: it lives its usual lifetime.
    expect(Date.parse(created.body.expiresAt)).toBeGreaterThan(Date.parse(createBy));

    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(createBy) - Date.now()) + 100));
    const replay = await h.call('POST', '/v1/internal/intents', body);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(created.body);
    expect(await intentsOf(body.idempotencyKey)).toEqual([{ id: created.body.intentId, status: 'CREATED' }]);

    const late = await h.call('POST', '/v1/internal/intents', { ...body, idempotencyKey: randomUUID() });
    expect([late.status, late.body.code]).toEqual([400, 'INTENT_CREATE_DEADLINE_PASSED']);
    // Only the first intent's amount + fee is held.
    expect(await balanceOf(h, source)).toMatchObject({ balance: 10_000, availableBalance: 8_950, frozenBalance: 1_050 });

    // Once the idempotency record is gone (48 h on), the request is not told "deadline passed" for
    // a key that has an intent: that answer always means nothing exists under the key.
    await h.admin.query(`DELETE FROM ledger.idempotency_keys WHERE scope = 'intent.create' AND key = $1`, [body.idempotencyKey]);
    const purged = await h.call('POST', '/v1/internal/intents', body);
    expect([purged.status, purged.body.code]).toEqual([422, 'IDEMPOTENCY_KEY_CONFLICT']);
    expect(await intentsOf(body.idempotencyKey)).toEqual([{ id: created.body.intentId, status: 'CREATED' }]);
  });

  it("a request in time that waits for the account's lock past the deadline is refused then, nothing held", async () => {
    const source = await fundedAccount(h, 10_000);
    const destination = await fundedAccount(h, 0);
    // Another transaction holds the source account's row while the deadline passes.
    const holder = new Client({ connectionString: h.db.adminUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM ledger.accounts WHERE id = $1 FOR UPDATE`, [source]);
      const body = intentBody(source, destination, 1_000, { createBy: new Date(Date.now() + 400).toISOString() });
      const pending = h.call('POST', '/v1/internal/intents', body);
      await new Promise((r) => setTimeout(r, 1_200));
      await holder.query('COMMIT');
      const res = await pending;
      expect([res.status, res.body.code]).toEqual([400, 'INTENT_CREATE_DEADLINE_PASSED']);
      expect(await intentsOf(body.idempotencyKey)).toEqual([]);
      expect(await balanceOf(h, source)).toMatchObject({ balance: 10_000, availableBalance: 10_000, frozenBalance: 0 });
    } finally {
      await holder.end();
    }
  });

  it('a first creation after the deadline: 400 INTENT_CREATE_DEADLINE_PASSED, nothing held, nothing stored, every time', async () => {
    const source = await fundedAccount(h, 10_000);
    const destination = await fundedAccount(h, 0);
    const body = intentBody(source, destination, 1_000, { createBy: new Date(Date.now() - 1_000).toISOString() });
    for (let i = 0; i < 2; i++) {
      const res = await h.call('POST', '/v1/internal/intents', body);
      expect([res.status, res.body.code]).toEqual([400, 'INTENT_CREATE_DEADLINE_PASSED']);
    }
    expect(await intentsOf(body.idempotencyKey)).toEqual([]);
    const keys = await h.admin.query(`SELECT 1 FROM ledger.idempotency_keys WHERE key = $1`, [body.idempotencyKey]);
    expect(keys.rows).toEqual([]);
    expect(await balanceOf(h, source)).toMatchObject({ balance: 10_000, availableBalance: 10_000, frozenBalance: 0 });
  });

  it('the deadline is judged before the balance, and a malformed one is a VALIDATION_ERROR', async () => {
    const empty = await fundedAccount(h, 0);
    const destination = await fundedAccount(h, 0);
    const late = await h.call(
      'POST',
      '/v1/internal/intents',
      intentBody(empty, destination, 1_000, { createBy: new Date(Date.now() - 1_000).toISOString() }),
    );
    expect([late.status, late.body.code]).toEqual([400, 'INTENT_CREATE_DEADLINE_PASSED']);
    const malformed = await h.call('POST', '/v1/internal/intents', intentBody(empty, destination, 1_000, { createBy: 'soon' }));
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [expect.objectContaining({ field: 'createBy' })] });
  });

  it('without createBy nothing changes: a creation is not bounded in time', async () => {
    const source = await fundedAccount(h, 2_000);
    const destination = await fundedAccount(h, 0);
    const created = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, 1_000));
    expect(created.status).toBe(201);
  });
});
