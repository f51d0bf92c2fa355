import { type Harness, balanceOf, contextFor, fundedAccount, intentBody, startLedger } from './ledger-harness';

/*
 * PostgreSQL text and jsonb cannot hold U+0000: a body carrying it must be the caller's 400, not a
 * 500 from the INSERT, on the creation (plain pipe) and on the confirm (compiled rules, one prepared
 * call) alike, with nothing written.
 */
describe('a U+0000 character in a body', () => {
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
});
