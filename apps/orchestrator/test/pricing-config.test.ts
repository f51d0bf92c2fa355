import { DataSource } from 'typeorm';
import { ConfigVersionsService, MAX_CACHED_VERSIONS } from '../src/config-api/config-versions.service';
import { ConfigSectionRegistry } from '../src/config-api/config-section-registry';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { LimitsDocumentDto } from '../src/limits/limits-document';
import { type PricingDocument, PricingDocumentDto } from '../src/pricing/pricing-document';
import { RiskDocumentDto } from '../src/risk/risk-document';
import { OrchestratorHarness } from './pricing-harness';

/** The versioned configuration: public reads, validation with stable codes, append-only history, concurrent changes. */
describe('versioned fee, limit and risk configuration', () => {
  const h = new OrchestratorHarness();
  let versions: ConfigVersionsService;

  beforeAll(async () => {
    await h.start();
    versions = h.get(ConfigVersionsService);
  });
  afterAll(() => h.stop());

  const pricingV1 = async () => (await versions.get('pricing', 1)).document;
  const withTransferBands = (doc: PricingDocument, bands: PricingDocument['fees'][number]['bands']): PricingDocument => ({
    ...doc,
    fees: doc.fees.map((g) => (g.type === 'TRANSFER' && g.currency === 'XAF' ? { ...g, bands } : g)),
  });

  it('serves the fee grids and limits in force without a token, with their version', async () => {
    const pricing = await h.request('GET', '/api/config/pricing');
    expect(pricing.statusCode).toBe(200);
    const body = pricing.json<{ version: number; effectiveFrom: string; document: PricingDocument }>();
    expect(body.version).toBe(1);
    expect(Object.keys(body)).toEqual(['version', 'effectiveFrom', 'document']); // no staff id, no internal note
    const cashIn = body.document.fees.find((g) => g.type === 'CASH_IN' && g.currency === 'XAF');
    expect(cashIn?.bands).toEqual([{ from: 1, to: null, fixed: 0, rateBps: 0 }]); // cash-in is free
    expect(body.document.fees).toHaveLength(8);

    const limits = await h.request('GET', '/api/config/limits');
    expect(limits.statusCode).toBe(200);
    expect(limits.json<{ document: { tiers: unknown[]; agents: unknown[] } }>().document.tiers).toHaveLength(6);
  });

  it('the seeded defaults pass the same validation as any change', async () => {
    const dtos: Record<string, new () => object> = { pricing: PricingDocumentDto, limits: LimitsDocumentDto, risk: RiskDocumentDto };
    for (const section of ['pricing', 'limits', 'risk'] as const) {
      const active = await versions.active(section);
      expect(
        validateSync(plainToInstance(dtos[section], active.document as object), {
          forbidUnknownValues: true,
          whitelist: true,
          forbidNonWhitelisted: true,
        }),
      ).toEqual([]);
      // appending the very same document must be accepted
      const next = await versions.append(section, {
        baseVersion: active.version,
        document: active.document as never,
        createdBy: 'test',
        reason: 'revalidate defaults',
      });
      expect(next.version).toBe(active.version + 1);
    }
  });

  it('estimates a fee with exact integer rounding (ceil on basis points)', async () => {
    const at = (amount: number | string, type = 'TRANSFER', currency = 'XAF') =>
      h.request('GET', `/api/config/pricing/estimate?type=${type}&amount=${amount}&currency=${currency}`);
    expect((await at(5_000)).json()).toMatchObject({ fee: 50, total: 5_050 });
    expect((await at(5_001)).json()).toMatchObject({ fee: 51, total: 5_052 }); // 1 % of 5 001 = 50.01 → 51
    expect((await at(50_001)).json()).toMatchObject({ fee: 501 }); // 250 + 0.5 % (250.005 → 251)
    expect((await at(10_000, 'CASH_IN')).json()).toMatchObject({ fee: 0, commission: 50 });
    expect((await at(10_001, 'CASH_OUT', 'XOF')).json()).toMatchObject({ fee: 201, commission: 80 }); // commission floors 80.008
    for (const bad of ['0', '-5', '12.5', '1e3', '0x10', '9007199254740993', 'abc']) {
      const res = await at(bad);
      expect(res.statusCode).toBe(400);
      expect(res.json<{ errors: Array<{ field: string; code: string }> }>().errors[0]).toMatchObject({
        field: 'amount',
        code: 'INVALID_AMOUNT',
      });
    }
    const unknownType = await at(100, 'REFUND');
    expect(unknownType.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'type' }] });
    const unknownCurrency = await at(100, 'TRANSFER', 'EUR');
    expect(unknownCurrency.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'currency' }] });
  });

  it('refuses a grid with a gap, an overlap, a closed end or a missing type, naming the field and the rule', async () => {
    const v1 = await pricingV1();
    const active = (await versions.active('pricing')).version;
    const attempt = (document: PricingDocument) =>
      versions.append('pricing', { baseVersion: active, document, createdBy: 'test', reason: 'bad grid' });
    const codesOf = async (document: PricingDocument) => {
      const error = await attempt(document).then(
        () => undefined,
        (e: { code: string; errors: Array<{ field: string; code: string }> }) => e,
      );
      expect(error?.code).toBe('VALIDATION_ERROR');
      return error?.errors.map((e) => `${e.field}:${e.code}`);
    };
    const gap = withTransferBands(v1, [
      { from: 1, to: 100, fixed: 1, rateBps: 0 },
      { from: 102, to: null, fixed: 2, rateBps: 0 },
    ]);
    expect(await codesOf(gap)).toEqual(['document.fees[0].bands[1].from:BANDS_NOT_CONTIGUOUS']);
    const overlap = withTransferBands(v1, [
      { from: 1, to: 100, fixed: 1, rateBps: 0 },
      { from: 100, to: null, fixed: 2, rateBps: 0 },
    ]);
    expect(await codesOf(overlap)).toEqual(['document.fees[0].bands[1].from:BANDS_NOT_CONTIGUOUS']);
    const closed = withTransferBands(v1, [{ from: 1, to: 100, fixed: 1, rateBps: 0 }]);
    expect(await codesOf(closed)).toEqual(['document.fees[0].bands[0].to:BANDS_NOT_OPEN_ENDED']);
    const missing = { ...v1, fees: v1.fees.filter((g) => !(g.type === 'CASH_OUT' && g.currency === 'XOF')) };
    expect(await codesOf(missing)).toEqual(['document.fees:GRID_MISSING']);
    const duplicate = { ...v1, commissions: [...v1.commissions, v1.commissions[0]] };
    expect(await codesOf(duplicate)).toEqual([`document.commissions[${v1.commissions.length}]:GRID_DUPLICATE`]);
    // nothing was stored
    expect((await versions.active('pricing')).version).toBe(active);
  });

  it('refuses a commission grid the ledger would refuse at confirm, and limits that would make the grid in force do so', async () => {
    const pricing = await versions.active('pricing');
    const limits = await versions.active('limits');
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => [],
        (e: { code: string; errors: Array<{ field: string; code: string }> }) => [e.code, ...e.errors.map((x) => `${x.field}:${x.code}`)],
      );
    const cashIn = pricing.document.commissions.findIndex((g) => g.type === 'CASH_IN' && g.currency === 'XAF');
    const withCashIn = (bands: PricingDocument['commissions'][number]['bands']): PricingDocument => ({
      ...pricing.document,
      commissions: pricing.document.commissions.map((g, i) => (i === cashIn ? { ...g, bands } : g)),
    });
    const submit = (document: PricingDocument) =>
      refusal(versions.append('pricing', { baseVersion: pricing.version, document, createdBy: 'test', reason: 'commission' }));
    // 600 flat: a cash-in of 500 (the smallest the limits allow) would pay the agent 600
    expect(await submit(withCashIn([{ from: 1, to: null, fixed: 600, rateBps: 0 }]))).toEqual([
      'VALIDATION_ERROR',
      `document.commissions[${cashIn}].bands[0]:COMMISSION_ABOVE_AMOUNT`,
    ]);
    // 10 %: a cash-in of 2 000 000 (the largest allowed) would pay 200 000, above COMMISSION_MAX_PER_OPERATION (100 000)
    expect(
      await submit(
        withCashIn([
          { from: 1, to: 100_000, fixed: 0, rateBps: 50 },
          { from: 100_001, to: null, fixed: 0, rateBps: 1_000 },
        ]),
      ),
    ).toEqual(['VALIDATION_ERROR', `document.commissions[${cashIn}].bands[1]:COMMISSION_ABOVE_CEILING`]);

    // the limits side: the default CASH_OUT commission pays 40 flat up to 5 000, so no cash-out below 40
    const cashOut = limits.document.amounts.findIndex((a) => a.type === 'CASH_OUT' && a.currency === 'XAF');
    const withCashOut = (bounds: { min: number; max: number }) => ({
      ...limits.document,
      amounts: limits.document.amounts.map((a, i) => (i === cashOut ? { ...a, ...bounds } : a)),
    });
    const submitLimits = (bounds: { min: number; max: number }) =>
      refusal(
        versions.append('limits', { baseVersion: limits.version, document: withCashOut(bounds), createdBy: 'test', reason: 'bounds' }),
      );
    expect(await submitLimits({ min: 10, max: 1_000_000 })).toEqual([
      'VALIDATION_ERROR',
      `document.amounts[${cashOut}].min:COMMISSION_ABOVE_AMOUNT`,
    ]);
    // 200 + 0.4 %: above 24 950 000 the commission passes 100 000
    expect(await submitLimits({ min: 500, max: 30_000_000 })).toEqual([
      'VALIDATION_ERROR',
      `document.amounts[${cashOut}].max:COMMISSION_ABOVE_CEILING`,
    ]);
    // nothing was stored
    expect((await versions.active('pricing')).version).toBe(pricing.version);
    expect((await versions.active('limits')).version).toBe(limits.version);
  });

  it('a change based on a stale version is refused with 409 CONFIG_VERSION_CONFLICT', async () => {
    const active = await versions.active('risk');
    await versions.append('risk', { baseVersion: active.version, document: active.document, createdBy: 'alice', reason: 'first' });
    await expect(
      versions.append('risk', { baseVersion: active.version, document: active.document, createdBy: 'bob', reason: 'second' }),
    ).rejects.toMatchObject({
      code: 'CONFIG_VERSION_CONFLICT',
      status: 409,
    });
  });

  it('of N concurrent changes on one base, exactly one lands; the others get 409', async () => {
    const active = await versions.active('limits');
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        versions.append('limits', { baseVersion: active.version, document: active.document, createdBy: `admin-${i}`, reason: `race ${i}` }),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost.map((r) => (r.reason as { code: string }).code)).toEqual(Array(7).fill('CONFIG_VERSION_CONFLICT'));
    expect((await versions.active('limits')).version).toBe(active.version + 1);
  });

  it('keeps who, when and why of every version, newest first', async () => {
    const active = await versions.active('pricing');
    await versions.append('pricing', {
      baseVersion: active.version,
      document: active.document,
      createdBy: 'admin-42',
      reason: 'quarterly review',
    });
    const history = await versions.history('pricing', { limit: 2 });
    expect(history[0]).toMatchObject({
      section: 'pricing',
      version: active.version + 1,
      createdBy: 'admin-42',
      reason: 'quarterly review',
    });
    expect(history[1].version).toBe(active.version);
    expect((await versions.history('pricing', { limit: 100 })).at(-1)).toMatchObject({ version: 1, createdBy: 'system:migration' });
  });

  it('the database refuses to change, delete or skip a version', async () => {
    await expect(
      h.sql.query(`UPDATE orchestrator.config_versions SET reason = 'rewritten' WHERE section = 'pricing' AND version = 1`),
    ).rejects.toThrow(/orchestrator.config_versions is append-only: UPDATE operation forbidden on pricing\/1/);
    await expect(h.sql.query(`DELETE FROM orchestrator.config_versions WHERE section = 'risk'`)).rejects.toThrow(
      /append-only: DELETE operation forbidden/,
    );
    await expect(
      h.sql.query(
        `INSERT INTO orchestrator.config_versions (section, version, document, created_by, reason) VALUES ('risk', 99, '{}', 'x', 'skip')`,
      ),
    ).rejects.toThrow(/risk version must be/);
  });

  // Two instances of the service on the harness' pool are two replicas sharing one database.
  const replica = () => new ConfigVersionsService(h.get(DataSource), h.get(ConfigSectionRegistry));

  it('a change appended through one replica is the version in force at another at its next read', async () => {
    const [a, b] = [replica(), replica()];
    const before = await a.active('risk');
    expect((await b.active('risk')).version).toBe(before.version);
    const created = await b.append('risk', {
      baseVersion: before.version,
      document: before.document,
      createdBy: 'test',
      reason: 'replicas',
    });
    expect((await a.active('risk')).version).toBe(created.version);
  });

  it('keeps at most MAX_CACHED_VERSIONS versions in memory, however long the history read', async () => {
    const service = replica();
    const { version: from } = await service.active('risk');
    await h.sql.query(
      `DO $$ BEGIN FOR i IN ${from + 1}..${from + MAX_CACHED_VERSIONS + 6} LOOP
         INSERT INTO orchestrator.config_versions (section, version, document, created_by, reason)
           SELECT 'risk', i, document, 'test', 'cache bound' FROM orchestrator.config_versions WHERE section = 'risk' AND version = 1;
       END LOOP; END $$`,
    );
    for (let v = 1; v <= from + MAX_CACHED_VERSIONS + 6; v++) expect((await service.get('risk', v)).version).toBe(v);
    expect(service.cachedVersions).toBe(MAX_CACHED_VERSIONS);
    // An evicted version is read again, whole.
    expect((await service.get('risk', 1)).createdBy).toBe('system:migration');
  });
});

describe('OpenAPI document of the config, pricing and risk routes', () => {
  const h = new OrchestratorHarness();
  beforeAll(() => h.start());
  afterAll(() => h.stop());

  it('documents every route with a tag, its error answers, and every DTO field with an example', async () => {
    const doc = (await h.request('GET', '/openapi.json')).json<{
      paths: Record<
        string,
        Record<
          string,
          { tags?: string[]; security?: unknown[]; parameters?: unknown[]; requestBody?: unknown; responses: Record<string, unknown> }
        >
      >;
      components: {
        schemas: Record<
          string,
          { properties?: Record<string, { example?: unknown; $ref?: string; items?: unknown; allOf?: unknown; oneOf?: unknown }> }
        >;
      };
    }>();
    const mine = Object.entries(doc.paths).filter(([path]) => /^\/api\/(config|risk)\//.test(path));
    expect(mine.length).toBeGreaterThanOrEqual(12);
    const problems: string[] = [];
    for (const [path, operations] of mine) {
      for (const [method, op] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (!op.tags?.length) problems.push(`${where}: no tag`);
        const takesInput = Boolean(op.requestBody) || (op.parameters?.length ?? 0) > 0;
        if (takesInput && !op.responses['400']) problems.push(`${where}: 400 not documented`);
        if (op.security && !(op.responses['401'] && op.responses['403'])) problems.push(`${where}: 401/403 not documented`);
        if (!Object.keys(op.responses).some((s) => s.startsWith('2'))) problems.push(`${where}: no success answer`);
      }
    }
    // the schemas these routes use, followed through their references (other modules' DTOs are not judged here)
    const dtoNames: string[] = [];
    const refsOf = (value: unknown) => [...JSON.stringify(value).matchAll(/#\/components\/schemas\/(\w+)/g)].map((m) => m[1]);
    const queue = refsOf(mine);
    while (queue.length > 0) {
      const name = queue.shift()!;
      if (dtoNames.includes(name) || name === 'ErrorBody') continue;
      dtoNames.push(name);
      queue.push(...refsOf(doc.components.schemas[name]));
    }
    expect(dtoNames).toEqual(
      expect.arrayContaining(['GridBandDto', 'ChangePricingDto', 'TierLimitsDto', 'AddBlocklistEntryDto', 'EstimateView']),
    );
    for (const name of dtoNames) {
      for (const [field, schema] of Object.entries(doc.components.schemas[name].properties ?? {})) {
        const structural = schema.$ref || schema.items || schema.allOf || schema.oneOf;
        if (!structural && schema.example === undefined) problems.push(`${name}.${field}: no example`);
      }
    }
    expect(problems).toEqual([]);
  });
});
