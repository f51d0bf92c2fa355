import { randomUUID } from 'node:crypto';
import { type Harness, contextFor, fundedAccount, intentBody, invariants, startLedger } from './ledger-harness';

/** `name;dur=x` entries of a Server-Timing header, by name. */
function stages(header: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (header ?? '').split(',')) {
    const m = /^\s*([\w-]+);dur=(\d+(?:\.\d+)?)\s*$/.exec(part);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

/**
 * The confirm says where its time went (the stages docs/performance.md "Ledger" reads).
 * Server-Timing keeps the platform's `total` and adds the ledger's stages; the idempotent confirm
 * stores its answer in the same round trip as its COMMIT and a replay returns those bytes.
 */
describe('ledger: per-stage Server-Timing on the confirm', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(() => h.close());

  const readyIntent = async (amount: number, fee = 0) => {
    const source = await fundedAccount(h, 1_000);
    const destination = await fundedAccount(h, 0);
    const created = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, amount, { fee }));
    expect(created.status).toBe(201);
    const id = created.body.intentId as string;
    expect(
      (await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } })).status,
    ).toBe(200);
    return { id, source, destination };
  };

  it('reports validate, conn, check, lock, sql and serialize after the total on a confirm, and no read: one round trip', async () => {
    const { id, source, destination } = await readyIntent(100);
    const res = await h.call('POST', `/v1/internal/intents/${id}/transition`, {
      toStatus: 'SUCCEEDED',
      actor: { id: 'user-1' },
      executionContext: contextFor(source, destination, 100),
    });
    expect(res.status).toBe(200);
    const header = res.headers.get('server-timing');
    expect(header).toMatch(/^total;dur=/);
    const s = stages(header);
    for (const name of ['total', 'pre', 'validate', 'conn', 'check', 'lock', 'sql', 'serialize']) {
      expect(s[name]).toBeGreaterThanOrEqual(0);
    }
    expect(s.idem).toBeUndefined();
    // The intent is read by the confirm's own statement (migration 1764300000000): no read stage.
    expect(s.read).toBeUndefined();
  });

  it('adds idem with an idempotency key; the replay has no database stages and the same bytes', async () => {
    const { id, source, destination } = await readyIntent(100, 5);
    const body = {
      toStatus: 'SUCCEEDED',
      actor: { id: 'user-1' },
      executionContext: contextFor(source, destination, 100, { fee: { amount: 5 } }),
    };
    const key = `confirm:${id}`;
    const first = await h.call('POST', `/v1/internal/intents/${id}/transition`, body, { 'x-idempotency-key': key });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'SUCCEEDED', fee: 5 });
    expect(Object.keys(stages(first.headers.get('server-timing')))).toEqual(
      expect.arrayContaining(['total', 'validate', 'idem', 'lock', 'sql']),
    );

    const replay = await h.call('POST', `/v1/internal/intents/${id}/transition`, body, { 'x-idempotency-key': key });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(JSON.stringify(replay.body)).toBe(JSON.stringify(first.body));
    const s = stages(replay.headers.get('server-timing'));
    expect(s.idem).toBeGreaterThanOrEqual(0);
    expect(s.sql).toBeUndefined();

    // Stored in the transaction of the effect, once; the key's lock was released with the others.
    const stored = await h.admin.query(`SELECT response_status, response_body::text AS body FROM ledger.idempotency_keys WHERE key = $1`, [
      key,
    ]);
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0].response_status).toBe(200);
    expect(JSON.parse(stored.rows[0].body)).toEqual(first.body);
    const locks = await h.admin.query(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    expect(locks.rows[0].n).toBe(0);
    const txs = await h.admin.query(`SELECT count(*)::int AS n FROM ledger.transactions WHERE intent_id = $1`, [id]);
    expect(txs.rows[0].n).toBe(1);
  });

  it('stores nothing for a refused idempotent confirm, and the same key then executes once', async () => {
    const { id, source, destination } = await readyIntent(100);
    const key = randomUUID();
    const refused = await h.call(
      'POST',
      `/v1/internal/intents/${id}/transition`,
      {
        toStatus: 'SUCCEEDED',
        actor: { id: 'user-1' },
        executionContext: contextFor(source, destination, 100, { fee: { amount: 5_000 } }),
      },
      { 'x-idempotency-key': key },
    );
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('INSUFFICIENT_BALANCE');
    expect(refused.headers.get('server-timing')).toMatch(/^total;dur=/);
    expect((await h.admin.query(`SELECT 1 FROM ledger.idempotency_keys WHERE key = $1`, [key])).rows).toHaveLength(0);

    const body = { toStatus: 'SUCCEEDED', actor: { id: 'user-1' }, executionContext: contextFor(source, destination, 100) };
    const ok = await h.call('POST', `/v1/internal/intents/${id}/transition`, body, { 'x-idempotency-key': key });
    expect(ok.status).toBe(200);
    expect((await h.call('GET', `/v1/internal/accounts/${destination}`)).body.balance).toBe(100);
    expect((await invariants(h.admin)).ledgerGaps).toBe(0);
  });
});
