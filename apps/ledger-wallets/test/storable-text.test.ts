import { type Harness, balanceOf, contextFor, fundedAccount, intentBody, startLedger } from './ledger-harness';

/*
 * PostgreSQL text and jsonb cannot hold U+0000: a body carrying it must be the caller's 400, not a
 * 500 from the INSERT, on the creation (plain pipe) and on the confirm (compiled rules, one prepared
 * call) alike, with nothing written.
 */
describe('characters PostgreSQL cannot store in a body (U+0000, an unpaired surrogate)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(() => h?.close());

  it('is a 400 VALIDATION_ERROR naming the field, and changes nothing', async () => {
    const source = await fundedAccount(h, 1_000);
    const destination = await fundedAccount(h, 0);

    const create = await h.call(
      'POST',
      '/v1/internal/intents',
      intentBody(source, destination, 10, { actor: { id: 'user-1', userAgent: 'a\u0000b' } }),
    );
    expect(create.status).toBe(400);
    expect(create.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'actor.userAgent', code: 'INVALID_CHARACTER' }] });
    expect(await balanceOf(h, source)).toMatchObject({ availableBalance: 1_000, frozenBalance: 0 });

    const created = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, 10));
    expect(created.status).toBe(201);
    const id = created.body.intentId as string;
    const pin = await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } });
    expect(pin.status).toBe(200);
    const confirm = await h.call('POST', `/v1/internal/intents/${id}/transition`, {
      toStatus: 'SUCCEEDED',
      actor: { id: 'user-1' },
      executionContext: contextFor(source, destination, 10, { metadata: { typeCode: 'P2P', extra: { 'no\u0000te': 'x' } } }),
    });
    expect(confirm.status).toBe(400);
    expect(confirm.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'executionContext.metadata.extra.no\u0000te', code: 'INVALID_CHARACTER' }],
    });
    expect((await h.call('GET', `/v1/internal/intents/${id}`)).body.status).toBe('PIN_VERIFIED');
    expect(await balanceOf(h, source)).toMatchObject({ balance: 1_000, availableBalance: 990, frozenBalance: 10 });
  });

  it('refuses an unpaired surrogate the same way (the driver would store U+FFFD instead), and keeps a paired one', async () => {
    const source = await fundedAccount(h, 1_000);
    const destination = await fundedAccount(h, 0);
    const created = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, 10));
    const id = created.body.intentId as string;
    expect(
      (await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } })).status,
    ).toBe(200);
    const confirm = (metadata: Record<string, unknown>, createdBy?: string) =>
      h.call('POST', `/v1/internal/intents/${id}/transition`, {
        toStatus: 'SUCCEEDED',
        actor: { id: 'user-1' },
        executionContext: contextFor(source, destination, 10, { metadata, ...(createdBy ? { createdBy } : {}) }),
      });

    // One after the other: were either let through, they must not race to confirm the same intent.
    for (const [send, field] of [
      [() => confirm({ typeCode: 'P2P', description: 'caf\ud800e' }), 'executionContext.metadata.description'],
      [() => confirm({ typeCode: 'P2P' }, 'agent-\udc00'), 'executionContext.createdBy'],
    ] as const) {
      const res = await send();
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field, code: 'INVALID_CHARACTER' }] });
    }
    expect((await h.call('GET', `/v1/internal/intents/${id}`)).body.status).toBe('PIN_VERIFIED');

    // A character outside the BMP is a surrogate pair: stored as sent.
    const ok = await confirm({ typeCode: 'P2P', description: 'paid \ud83d\udcb0' });
    expect(ok.status).toBe(200);
    const { rows } = await h.admin.query(`SELECT metadata->>'description' AS d FROM ledger.transactions WHERE intent_id = $1`, [id]);
    expect(rows[0].d).toBe('paid \u{1F4B0}');
  });
});
