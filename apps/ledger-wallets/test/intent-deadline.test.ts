import { Client } from 'pg';
import { uuidLockKey } from '../src/db/lock-keys';
import { type Harness, balanceOf, contextFor, fundedAccount, intentBody, startLedger } from './ledger-harness';

/**
 * `expiresAt` on creation: a caller (the orchestrator, for a partner order's QR) can end an intent
 * earlier than the ledger's own lifetime, so that a payment cannot complete after the order it pays
 * stopped being payable. The intent expires at whichever end comes first.
 */
describe('ledger: an intent created with its own deadline', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startLedger({ LEDGER_INTENT_TTL_SECONDS: '600' });
  });
  afterAll(() => h?.close());

  it('ends at the earlier deadline: the confirm after it is INTENT_EXPIRED and nothing moves', async () => {
    const source = await fundedAccount(h, 1_000);
    const destination = await fundedAccount(h, 0);
    const deadline = new Date(Date.now() + 1_500).toISOString();
    const created = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, 100, { expiresAt: deadline }));
    expect(created.status).toBe(201);
    expect(created.body.expiresAt).toBe(deadline);
    const id = created.body.intentId as string;
    expect(
      (await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } })).status,
    ).toBe(200);

    // Past the deadline (not the 600 s lifetime): too late.
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(deadline) - Date.now()) + 50));
    const late = await h.call('POST', `/v1/internal/intents/${id}/transition`, {
      toStatus: 'SUCCEEDED',
      actor: { id: 'user-1' },
      executionContext: contextFor(source, destination, 100),
    });
    expect(late.status).toBe(400);
    expect(late.body.code).toBe('INTENT_EXPIRED');
    expect(await balanceOf(h, destination)).toMatchObject({ balance: 0 });
    expect(await balanceOf(h, source)).toMatchObject({ balance: 1_000 });
  });

  it('a confirm that reached its intent before the deadline but waited for a busy account past it is INTENT_EXPIRED: nothing moves', async () => {
    const source = await fundedAccount(h, 1_000);
    const destination = await fundedAccount(h, 0);
    const deadline = new Date(Date.now() + 2_500).toISOString();
    const created = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, 100, { expiresAt: deadline }));
    expect(created.status).toBe(201);
    const id = created.body.intentId as string;
    expect(
      (await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } })).status,
    ).toBe(200);

    // Another money operation holds the source account's lock across the deadline.
    const other = new Client({ connectionString: h.db.adminUrl });
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock($1)', [uuidLockKey(source).toString()]);
      const confirm = h.call(
        'POST',
        `/v1/internal/intents/${id}/transition`,
        { toStatus: 'SUCCEEDED', actor: { id: 'user-1' }, executionContext: contextFor(source, destination, 100) },
        { 'x-idempotency-key': `confirm:${id}` },
      );
      // The confirm is waiting for the account before the deadline (else this case would test nothing).
      for (;;) {
        const { rows } = await h.admin.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory' AND pid <> pg_backend_pid()`,
        );
        if (rows[0].n > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(Date.now()).toBeLessThan(Date.parse(deadline));
      await new Promise((r) => setTimeout(r, Date.parse(deadline) - Date.now() + 300));
      await other.query('SELECT pg_advisory_unlock_all()');
      const res = await confirm;
      expect([res.status, res.body.code]).toEqual([400, 'INTENT_EXPIRED']);
    } finally {
      await other.end();
    }
    expect(await balanceOf(h, destination)).toMatchObject({ balance: 0 });
    expect(await balanceOf(h, source)).toMatchObject({ balance: 1_000 });
    const { rows } = await h.admin.query(`SELECT count(*)::int AS n FROM ledger.transactions WHERE intent_id = $1`, [id]);
    expect(rows[0].n).toBe(0);
  });

  it("a deadline beyond the ledger's lifetime is cut to the lifetime", async () => {
    const source = await fundedAccount(h, 1_000);
    const destination = await fundedAccount(h, 0);
    const before = Date.now();
    const created = await h.call(
      'POST',
      '/v1/internal/intents',
      intentBody(source, destination, 100, { expiresAt: new Date(Date.now() + 3_600_000).toISOString() }),
    );
    expect(created.status).toBe(201);
    const ends = Date.parse(created.body.expiresAt);
    expect(ends).toBeGreaterThanOrEqual(before + 600_000 - 1_000);
    expect(ends).toBeLessThanOrEqual(Date.now() + 600_000 + 1_000);
  });

  it('a deadline already past is 400 INTENT_EXPIRED with nothing held; a malformed one is a VALIDATION_ERROR', async () => {
    const source = await fundedAccount(h, 1_000);
    const destination = await fundedAccount(h, 0);
    const past = await h.call(
      'POST',
      '/v1/internal/intents',
      intentBody(source, destination, 100, { expiresAt: new Date(Date.now() - 1_000).toISOString() }),
    );
    expect(past.status).toBe(400);
    expect(past.body.code).toBe('INTENT_EXPIRED');
    expect(await balanceOf(h, source)).toMatchObject({ availableBalance: 1_000, frozenBalance: 0 });

    const malformed = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, 100, { expiresAt: 'tomorrow' }));
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [expect.objectContaining({ field: 'expiresAt' })] });
  });
});
