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
