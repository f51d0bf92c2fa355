import { randomUUID } from 'node:crypto';
import { ConfigVersionsService } from '../src/config-api/config-versions.service';
import type { PricingDocument } from '../src/pricing/pricing-document';
import { PricingService } from '../src/pricing/pricing.service';
import { OrchestratorHarness } from './pricing-harness';

/**
 * Quote at create, requote at confirm. The rule under test: the quoted fee is charged unless the
 * grid changed in the payer's favour (then the lower fee) or the quote outlived its validity
 * (then the grid in force); the first decision is stored and every retry gets it back.
 */
describe('fee quotes and the confirm-time requote', () => {
  const h = new OrchestratorHarness();
  let pricing: PricingService;
  let versions: ConfigVersionsService;

  beforeAll(async () => {
    await h.start();
    pricing = h.get(PricingService);
    versions = h.get(ConfigVersionsService);
  });
  afterAll(() => h.stop());

  /** A new pricing version where CASH_OUT in XAF costs `fee` flat and pays `commission` flat. */
  async function setCashOut(fee: number, commission: number): Promise<number> {
    const active = await versions.active('pricing');
    const flat = (fixed: number) => [{ from: 1, to: null, fixed, rateBps: 0 }];
    const document: PricingDocument = {
      ...active.document,
      fees: active.document.fees.map((g) => (g.type === 'CASH_OUT' && g.currency === 'XAF' ? { ...g, bands: flat(fee) } : g)),
      commissions: active.document.commissions.map((g) =>
        g.type === 'CASH_OUT' && g.currency === 'XAF' ? { ...g, bands: flat(commission) } : g,
      ),
    };
    return (
      await versions.append('pricing', {
        baseVersion: active.version,
        document,
        createdBy: 'test',
        reason: `cash-out ${fee}/${commission}`,
      })
    ).version;
  }
  const cashOut = (amount = 20_000, operationId: string = randomUUID()) => ({
    type: 'CASH_OUT' as const,
    amount,
    currency: 'XAF' as const,
    operationId,
  });

  it('a quote records its numbers and the grid version it used', async () => {
    const quote = await pricing.quote({ type: 'TRANSFER', amount: 10_001, currency: 'XAF', operationId: randomUUID() });
    expect(quote).toMatchObject({ type: 'TRANSFER', amount: 10_001, currency: 'XAF', fee: 101, commission: 0, gridVersion: 1 });
    expect(Date.parse(quote.expiresAt) - Date.parse(quote.createdAt)).toBe(900_000);
    expect(await pricing.getQuote(quote.quoteId)).toEqual(quote);
    const { rows } = await h.sql.query(`SELECT fee, grid_version FROM orchestrator.fee_quotes WHERE id = $1`, [quote.quoteId]);
    expect(rows).toEqual([{ fee: '101', grid_version: 1 }]);
  });

  it('a retried create gets the same quote; the same key with other terms is refused', async () => {
    const op = cashOut(30_000);
    const [a, b] = await Promise.all([pricing.quote(op), pricing.quote(op)]);
    expect(b).toEqual(a);
    await expect(pricing.quote({ ...op, amount: 30_001 })).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_CONFLICT', status: 422 });
  });

  it('same grid at confirm: the quoted fee and commission are charged', async () => {
    const version = await setCashOut(300, 120);
    const quote = await pricing.quote(cashOut());
    const charge = await pricing.requote(quote);
    expect(charge).toMatchObject({
      rule: 'QUOTE_HONOURED',
      fee: 300,
      commission: 120,
      gridVersion: version,
      quoted: { fee: 300, commission: 120, gridVersion: version },
    });
  });

  it('grid raised while the intent is open: the quote wins (fee, commission and version of the quote)', async () => {
    const before = await setCashOut(300, 120);
    const quote = await pricing.quote(cashOut());
    await setCashOut(450, 200);
    expect(await pricing.requote(quote)).toMatchObject({ rule: 'QUOTE_HONOURED', fee: 300, commission: 120, gridVersion: before });
  });

  it('grid lowered while the intent is open: the lower fee wins, with the commission of that grid', async () => {
    await setCashOut(300, 120);
    const quote = await pricing.quote(cashOut());
    const after = await setCashOut(200, 90);
    expect(await pricing.requote(quote)).toMatchObject({
      rule: 'ACTIVE_GRID_LOWER',
      fee: 200,
      commission: 90,
      gridVersion: after,
      quoted: { fee: 300, commission: 120 },
    });
  });

  it('a quote past its validity no longer binds: the grid in force applies, even if higher', async () => {
    const old = await setCashOut(300, 120);
    // A quote given 20 minutes ago with a 15-minute validity (arranged directly: time cannot be waited for here).
    const quoteId = randomUUID();
    await h.sql.query(
      `INSERT INTO orchestrator.fee_quotes (id, type, currency, amount, fee, commission, grid_version, created_at, expires_at)
       VALUES ($1, 'CASH_OUT', 'XAF', 20000, 300, 120, $2, now() - interval '20 minutes', now() - interval '5 minutes')`,
      [quoteId, old],
    );
    const now = await setCashOut(450, 200);
    expect(await pricing.requote({ quoteId, type: 'CASH_OUT', amount: 20_000, currency: 'XAF' })).toMatchObject({
      rule: 'QUOTE_EXPIRED',
      fee: 450,
      commission: 200,
      gridVersion: now,
    });
  });

  it('the decision is taken once: concurrent and later requotes return the same charge, whatever the grid does next', async () => {
    await setCashOut(300, 120);
    const quote = await pricing.quote(cashOut());
    await setCashOut(250, 100);
    const charges = await Promise.all(Array.from({ length: 10 }, () => pricing.requote(quote)));
    for (const charge of charges) expect(charge).toEqual(charges[0]);
    expect(charges[0]).toMatchObject({ rule: 'ACTIVE_GRID_LOWER', fee: 250 });
    await setCashOut(100, 10);
    expect(await pricing.requote(quote)).toEqual(charges[0]);
  });

  it('refuses an unknown quote (404) and a quote paired with another operation (a caller bug, not a client error)', async () => {
    await expect(pricing.requote({ quoteId: randomUUID(), type: 'CASH_OUT', amount: 1, currency: 'XAF' })).rejects.toMatchObject({
      code: 'QUOTE_NOT_FOUND',
      status: 404,
    });
    const quote = await pricing.quote(cashOut(20_000));
    await expect(pricing.requote({ ...quote, amount: 20_001 })).rejects.toThrow(/does not price this operation/);
  });

  it('the database keeps a quote as given and its charge as decided', async () => {
    const quote = await pricing.quote(cashOut());
    await expect(h.sql.query(`UPDATE orchestrator.fee_quotes SET fee = 0 WHERE id = $1`, [quote.quoteId])).rejects.toThrow(/immutable/);
    await pricing.requote(quote);
    await expect(h.sql.query(`UPDATE orchestrator.fee_quotes SET charged_fee = 0 WHERE id = $1`, [quote.quoteId])).rejects.toThrow(
      /immutable/,
    );
    await expect(h.sql.query(`DELETE FROM orchestrator.fee_quotes WHERE id = $1`, [quote.quoteId])).rejects.toThrow(/append-only/);
  });

  it('refuses to quote a commission the ledger would refuse at confirm (COMMISSION_OUT_OF_RANGE), storing no quote', async () => {
    // A grid that slipped past validation (stored before the rule existed, or two changes that crossed):
    // written straight into the table, which is how such a version could be in force.
    const active = await versions.active('pricing');
    const appendRaw = (document: PricingDocument) =>
      h.sql.query(
        `INSERT INTO orchestrator.config_versions (section, version, document, created_by, reason)
         SELECT 'pricing', max(version) + 1, $1::jsonb, 'test', 'raw' FROM orchestrator.config_versions WHERE section = 'pricing'`,
        [JSON.stringify(document)],
      );
    const commissionOf = (bands: PricingDocument['commissions'][number]['bands']): PricingDocument => ({
      ...active.document,
      commissions: active.document.commissions.map((g) => (g.type === 'CASH_OUT' && g.currency === 'XAF' ? { ...g, bands } : g)),
    });
    await appendRaw(commissionOf([{ from: 1, to: null, fixed: 1_000, rateBps: 5_000 }]));
    const quotes = async () => Number((await h.sql.query<{ n: string }>(`SELECT count(*) AS n FROM orchestrator.fee_quotes`)).rows[0].n);
    const before = await quotes();
    // 1 000 + 50 % of 1 500 = 1 750 > 1 500
    await expect(pricing.quote(cashOut(1_500))).rejects.toMatchObject({ code: 'COMMISSION_OUT_OF_RANGE', status: 422 });
    // 1 000 + 50 % of 400 000 = 201 000 > COMMISSION_MAX_PER_OPERATION (100 000)
    await expect(pricing.quote(cashOut(400_000))).rejects.toMatchObject({ code: 'COMMISSION_OUT_OF_RANGE', status: 422 });
    expect(await quotes()).toBe(before);
    // 1 000 + 50 % of 20 000 = 11 000: within both bounds, quoted
    expect(await pricing.quote(cashOut(20_000))).toMatchObject({ commission: 11_000 });
    await appendRaw(active.document);
  });
});
