import { type OperatorSigner, TEST_CHECKER, bearer, startOperatorSigner } from '../../../test/support/funding';
import { openApiOf, undocumented } from '../../../test/support/openapi-departures';
import { type Harness, balanceOf, contextFor, fundedAccount, intentBody, invariants, startLedger, transfer } from './ledger-harness';

const MAX = Number.MAX_SAFE_INTEGER;
const NEAR_MAX = MAX - 1_000;

/**
 * Money is exact on every path (docs/ledger.md "Wallets and accounts"): a sum beyond 2^53 − 1 is
 * refused with the stable 422 AMOUNT_OUT_OF_RANGE, never rounded and never a 500.
 */
describe('ledger: money beyond 2^53 − 1 is refused, never rounded', () => {
  let h: Harness;
  let operators: OperatorSigner;
  /** audits and integrity checks need a compliance officer's access token besides the service key */
  let auditor: Record<string, string>;

  beforeAll(async () => {
    operators = await startOperatorSigner();
    h = await startLedger({ LEDGER_CONSENT_JWKS_URL: operators.jwksUrl });
    operators.alsoServe(h.consent.jwksUrl);
    auditor = bearer(await operators.token(TEST_CHECKER, { expiresInSec: 600 }));
  });
  afterAll(async () => {
    await h.close();
    await operators.close();
  });

  /** An intent of `amount` from a source holding exactly that, moved to PIN_VERIFIED. */
  const readyIntent = async (amount: number, currency = 'XAF') => {
    const source = await fundedAccount(h, amount, currency);
    const destination = await fundedAccount(h, 0, currency);
    const created = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, amount, { currency }));
    expect(created.status).toBe(201);
    const id = created.body.intentId as string;
    const pin = await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } });
    expect(pin.status).toBe(200);
    return { id, source, destination };
  };

  /**
   * Suspense funds every test account and may itself go no lower than −(2^53 − 1): each test that
   * borrows near that much returns it (failing its intent first, which releases the hold).
   */
  const giveBack = async (account: string, amount: number, intentId?: string) => {
    if (intentId) {
      const failed = await h.call('POST', `/v1/internal/intents/${intentId}/transition`, { toStatus: 'FAILED', actor: { id: 'test' } });
      expect(failed.status).toBe(200);
    }
    const back = await h.call('PUT', `/v1/accounts/${account}/balance/subtract`, { amount, reason: 'test clean-up', createdBy: 'test' });
    expect(back.status).toBe(200);
  };

  it.each([
    ['in one round trip (no idempotency key)', {}],
    ['on the idempotent path', { 'x-idempotency-key': '7a0c5a2e-3d4b-4c8e-9f1a-2b3c4d5e6f70' }],
  ])('confirm with amount + fee above 2^53 − 1 answers 422 AMOUNT_OUT_OF_RANGE %s, and moves nothing', async (_name, headers) => {
    const { id, source, destination } = await readyIntent(MAX - 1);
    const res = await h.call(
      'POST',
      `/v1/internal/intents/${id}/transition`,
      {
        toStatus: 'SUCCEEDED',
        actor: { id: 'user-1' },
        executionContext: contextFor(source, destination, MAX - 1, { fee: { amount: 5 } }),
      },
      headers as Record<string, string>,
    );
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('AMOUNT_OUT_OF_RANGE');
    expect((await h.call('GET', `/v1/internal/intents/${id}`)).body.status).toBe('PIN_VERIFIED');
    expect(await balanceOf(h, source)).toMatchObject({ balance: MAX - 1, frozenBalance: MAX - 1 });
    expect(await balanceOf(h, destination)).toMatchObject({ balance: 0 });
    await giveBack(source, MAX - 1, id);
  });

  it('a balance adjustment that would carry a balance past 2^53 − 1 answers 422 and changes nothing', async () => {
    const account = await fundedAccount(h, MAX - 5, 'XOF');
    const res = await h.call('PUT', `/v1/accounts/${account}/balance/add`, { amount: 10, reason: 'overflow attempt', createdBy: 'ops-1' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('AMOUNT_OUT_OF_RANGE');
    const after = await h.call('GET', `/v1/internal/accounts/${account}`);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ balance: MAX - 5, availableBalance: MAX - 5 });
    await giveBack(account, MAX - 5);
  });

  it('an account whose turnover exceeds 2^53 − 1 is audited exactly: sums as decimal strings, never refused', async () => {
    const doc = await openApiOf(h.app.app);
    // Real payments: NEAR_MAX goes from a to b and comes back, so a has credited 2 × NEAR_MAX over its life.
    const a = await fundedAccount(h, NEAR_MAX);
    const b = await fundedAccount(h, 0);
    expect((await transfer(h, a, b, NEAR_MAX)).status).toBe(200);
    expect((await transfer(h, b, a, NEAR_MAX)).status).toBe(200);
    const audit = await h.call('GET', `/v1/internal/accounts/${a}/audit`, undefined, auditor);
    expect(audit.status).toBe(200);
    const turnover = (2n * BigInt(NEAR_MAX)).toString();
    expect(BigInt(turnover)).toBeGreaterThan(BigInt(MAX));
    expect(audit.body).toMatchObject({
      status: 'OK',
      balances: { stored: NEAR_MAX, recomputed: String(NEAR_MAX), gap: '0', available: NEAR_MAX, frozen: 0, consistent: true },
      entries: { count: 3, debits: String(NEAR_MAX), credits: turnover },
      findings: [],
    });
    expect(undocumented(doc, 'GET', '/v1/internal/accounts/{id}/audit', audit)).toEqual([]);
    expect((await invariants(h.admin)).ledgerGaps).toBe(0);
    await giveBack(a, NEAR_MAX);
  });

  it('an audit at the edge of the range reports exact totals in the shape its OpenAPI document gives, as do the balance answers', async () => {
    const doc = await openApiOf(h.app.app);
    // XOF: the XAF suspense still carries the previous test's funding, and may go no lower than −(2^53 − 1).
    const account = await fundedAccount(h, NEAR_MAX, 'XOF');
    const audit = await h.call('GET', `/v1/internal/accounts/${account}/audit`, undefined, auditor);
    expect(audit.status).toBe(200);
    expect(audit.body).toMatchObject({
      status: 'OK',
      balances: { stored: NEAR_MAX, recomputed: String(NEAR_MAX), gap: '0', available: NEAR_MAX, frozen: 0, consistent: true },
      entries: { count: 1, debits: '0', credits: String(NEAR_MAX) },
      findings: [],
    });
    const back = await h.call('PUT', `/v1/accounts/${account}/balance/subtract`, {
      amount: NEAR_MAX,
      reason: 'test clean-up',
      createdBy: 'test',
    });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({
      operation: 'subtract',
      amount: NEAR_MAX,
      account: { balance: 0 },
      transactionId: expect.any(String),
    });
    const after = await h.call('GET', `/v1/internal/accounts/${account}/audit`, undefined, auditor);
    expect(after.body).toMatchObject({ status: 'OK', entries: { count: 2, debits: String(NEAR_MAX), credits: String(NEAR_MAX) } });
    expect([
      ...undocumented(doc, 'GET', '/v1/internal/accounts/{id}/audit', audit),
      ...undocumented(doc, 'PUT', '/v1/accounts/{id}/balance/{operation}', back),
      ...undocumented(doc, 'GET', '/v1/internal/accounts/{id}/audit', after),
    ]).toEqual([]);
  });

  // Last in the file: it leaves the XAF suspense account with a gap behind.
  it('an integrity check sums exactly past 2^53 − 1: currency totals and gaps as decimal strings, never refused', async () => {
    const doc = await openApiOf(h.app.app);
    // Real payments: NEAR_MAX goes from a to b and back, so XAF's entries move 3 × NEAR_MAX in all.
    const a = await fundedAccount(h, NEAR_MAX);
    const b = await fundedAccount(h, 0);
    expect((await transfer(h, a, b, NEAR_MAX)).status).toBe(200);
    expect((await transfer(h, b, a, NEAR_MAX)).status).toBe(200);
    const clean = await h.call('POST', '/v1/internal/integrity-checks', undefined, auditor);
    expect(clean.status).toBe(200);
    expect(clean.body).toMatchObject({ status: 'OK', gapCount: 0, gaps: [] });
    expect(clean.body.currencyTotals).toEqual([
      { currency: 'XAF', storedTotal: '0', ledgerTotal: '0', gap: '0' },
      { currency: 'XOF', storedTotal: '0', ledgerTotal: '0', gap: '0' },
    ]);

    // Damage: suspense, which funded a (−NEAR_MAX by its entries), stored as +NEAR_MAX. Its gap and
    // the currency's stored total are 2 × NEAR_MAX: beyond a JSON number, reported exactly.
    const [{ id: suspense }] = (
      await h.admin.query<{ id: string }>(`SELECT id FROM ledger.accounts WHERE account_type = 'suspense' AND currency = 'XAF'`)
    ).rows;
    await h.admin.query(`UPDATE ledger.accounts SET balance = $2, available_balance = $2 WHERE id = $1`, [suspense, NEAR_MAX]);
    const twice = (2n * BigInt(NEAR_MAX)).toString();
    const run = await h.call('POST', '/v1/internal/integrity-checks', undefined, auditor);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'GAPS_FOUND', accountGapCount: 1, gapCount: 2 });
    expect(run.body.gaps).toEqual([
      {
        accountId: suspense,
        currency: 'XAF',
        accountType: 'suspense',
        stored: NEAR_MAX,
        recomputed: String(-NEAR_MAX),
        gap: twice,
        available: NEAR_MAX,
        frozen: 0,
      },
    ]);
    expect(run.body.currencyTotals).toEqual([
      { currency: 'XAF', storedTotal: twice, ledgerTotal: '0', gap: twice },
      { currency: 'XOF', storedTotal: '0', ledgerTotal: '0', gap: '0' },
    ]);
    // The record says the same, digit for digit.
    const listed = await h.call('GET', '/v1/internal/integrity-checks?limit=2', undefined, auditor);
    expect(listed.status).toBe(200);
    expect(listed.body.map((c: { id: string }) => c.id)).toEqual([run.body.id, clean.body.id]);
    expect(listed.body[0]).toMatchObject({ gaps: run.body.gaps, currencyTotals: run.body.currencyTotals });
    expect([
      ...undocumented(doc, 'POST', '/v1/internal/integrity-checks', clean),
      ...undocumented(doc, 'POST', '/v1/internal/integrity-checks', run),
      ...undocumented(doc, 'GET', '/v1/internal/integrity-checks', listed),
    ]).toEqual([]);
  });
});
