import { randomUUID } from 'node:crypto';
import { RiskService } from '../src/risk/risk.service';
import type { PricingDocument } from '../src/pricing/pricing-document';
import { ADMIN_PHONE, ADMIN_PIN, type Answer, OrchestratorHarness } from './pricing-harness';

const CUSTOMER_PHONE = '+237690001002';
const CUSTOMER_PIN = '5927';

/**
 * The admin and compliance routes through the orchestrator's access guard, with real tokens from
 * the real auth service: the bootstrap administrator, and a customer who may not change anything.
 */
describe('config and risk admin routes behind the access guard', () => {
  const h = new OrchestratorHarness();
  let admin: { token: string; userId: string };
  let customer: { token: string; userId: string };

  beforeAll(async () => {
    // Lifting a blocklist entry runs on one pair of eyes here, as the route answered before
    // BLOCKLIST_REMOVE (four eyes by default: blocklist-approvals.test.ts).
    await h.start({ APPROVALS_ONE_PERSON_ACTIONS: 'CONFIG_CHANGE,BLOCKLIST_REMOVE' }, { withAuth: true });
    admin = await h.login(ADMIN_PHONE, ADMIN_PIN);
    await h.createUser(CUSTOMER_PHONE, CUSTOMER_PIN, ['CUSTOMER']);
    customer = await h.login(CUSTOMER_PHONE, CUSTOMER_PIN);
  });
  afterAll(() => h.stop());

  const code = (res: Answer) => `${res.statusCode} ${res.json<{ code?: string }>().code ?? ''}`.trim();

  async function pricingChange(fixed: number): Promise<{ baseVersion: number; reason: string; document: PricingDocument }> {
    const active = (await h.request('GET', '/api/config/pricing')).json<{ version: number; document: PricingDocument }>();
    const document: PricingDocument = {
      ...active.document,
      fees: active.document.fees.map((g) =>
        g.type === 'TRANSFER' && g.currency === 'XAF' ? { ...g, bands: [{ from: 1, to: null, fixed, rateBps: 0 }] } : g,
      ),
    };
    return { baseVersion: active.version, reason: `flat transfer fee ${fixed}`, document };
  }

  it('a grid change needs config.manage: 401 without a token, 403 for a customer, 201 for an admin (who is recorded)', async () => {
    const body = await pricingChange(75);
    expect(code(await h.request('POST', '/api/config/pricing/versions', { body }))).toBe('401 UNAUTHORIZED');
    expect(code(await h.request('POST', '/api/config/pricing/versions', { body, token: customer.token }))).toBe('403 FORBIDDEN');
    const created = await h.request('POST', '/api/config/pricing/versions', { body, token: admin.token });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({
      section: 'pricing',
      version: body.baseVersion + 1,
      createdBy: admin.userId,
      reason: 'flat transfer fee 75',
    });
    // in force at once for everyone
    const estimate = await h.request('GET', '/api/config/pricing/estimate?type=TRANSFER&amount=123456&currency=XAF');
    expect(estimate.json()).toMatchObject({ fee: 75, gridVersion: body.baseVersion + 1 });
    // the same change again is based on a stale version
    expect(code(await h.request('POST', '/api/config/pricing/versions', { body, token: admin.token }))).toBe('409 CONFIG_VERSION_CONFLICT');
  });

  it('a bad grid is a 400 whose errors name the field and the rule', async () => {
    const body = await pricingChange(75);
    body.document.fees[0].bands = [
      { from: 1, to: 1_000, fixed: 10, rateBps: 0 },
      { from: 1_500, to: null, fixed: 20, rateBps: 20_000 },
    ];
    const res = await h.request('POST', '/api/config/pricing/versions', { body, token: admin.token });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ code: string; errors: Array<{ field: string; code: string }> }>()).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'document.fees[0].bands[1].rateBps', code: 'INVALID_RATE' }],
    });
    body.document.fees[0].bands[1].rateBps = 100;
    const gap = await h.request('POST', '/api/config/pricing/versions', { body, token: admin.token });
    expect(gap.json<{ errors: Array<{ field: string; code: string }> }>().errors).toEqual([
      expect.objectContaining({ field: 'document.fees[0].bands[1].from', code: 'BANDS_NOT_CONTIGUOUS' }),
    ]);
    const noReason = await h.request('POST', '/api/config/limits/versions', { body: { baseVersion: 1, document: {} }, token: admin.token });
    expect(noReason.statusCode).toBe(400);
  });

  it('risk thresholds and the history are for administrators only', async () => {
    expect(code(await h.request('GET', '/api/config/risk'))).toBe('401 UNAUTHORIZED');
    expect(code(await h.request('GET', '/api/config/risk', { token: customer.token }))).toBe('403 FORBIDDEN');
    const risk = await h.request('GET', '/api/config/risk', { token: admin.token });
    expect(risk.json()).toMatchObject({ section: 'risk', version: 1, document: { velocity: { maxPerCustomer: 10 } } });

    const history = await h.request('GET', '/api/config/pricing/versions?limit=1', { token: admin.token });
    expect(history.json<{ versions: Array<{ createdBy: string }>; nextBefore: number | null }>().versions[0].createdBy).toBe(admin.userId);
    expect(history.json<{ nextBefore: number | null }>().nextBefore).toEqual(expect.any(Number));
    const first = await h.request('GET', '/api/config/pricing/versions/1', { token: admin.token });
    expect(first.json()).toMatchObject({ version: 1, createdBy: 'system:migration' });
    expect(code(await h.request('GET', '/api/config/pricing/versions/999', { token: admin.token }))).toBe('404 CONFIG_VERSION_NOT_FOUND');
    expect(code(await h.request('GET', '/api/config/fees/versions/1', { token: admin.token }))).toBe('400 VALIDATION_ERROR');
    expect(code(await h.request('GET', '/api/config/pricing/versions/1e3', { token: admin.token }))).toBe('400 VALIDATION_ERROR');
    expect(code(await h.request('GET', '/api/config/pricing/versions', { token: customer.token }))).toBe('403 FORBIDDEN');
  });

  it('blocklist: add, list, lift; duplicates and unknown entries have their codes; customers may not touch it', async () => {
    const phone = '+237690009999';
    const body = { phone, list: 'FRAUD', reason: 'case 2026-118' };
    expect(code(await h.request('POST', '/api/risk/blocklist', { body, token: customer.token }))).toBe('403 FORBIDDEN');
    const added = await h.request('POST', '/api/risk/blocklist', { body, token: admin.token });
    expect(added.statusCode).toBe(201);
    const entry = added.json<{ id: string }>();
    expect(entry).toMatchObject({ phone, list: 'FRAUD', addedBy: admin.userId, removedAt: null });
    expect(code(await h.request('POST', '/api/risk/blocklist', { body, token: admin.token }))).toBe('409 BLOCKLIST_ENTRY_EXISTS');
    const badPhone = await h.request('POST', '/api/risk/blocklist', { body: { ...body, phone: '0690009999' }, token: admin.token });
    expect(badPhone.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'phone', code: 'INVALID_PHONE_FORMAT' }] });

    const listed = await h.request('GET', `/api/risk/blocklist?phone=${encodeURIComponent(phone)}`, { token: admin.token });
    expect(listed.json<{ entries: Array<{ id: string }> }>().entries.map((e) => e.id)).toEqual([entry.id]);

    expect(code(await h.request('DELETE', `/api/risk/blocklist/${entry.id}`, { token: admin.token }))).toBe('400 VALIDATION_ERROR'); // reason required
    const lifted = await h.request('DELETE', `/api/risk/blocklist/${entry.id}?reason=${encodeURIComponent('closed case')}`, {
      token: admin.token,
    });
    expect(lifted.statusCode).toBe(200);
    expect(lifted.json()).toMatchObject({ id: entry.id, removedBy: admin.userId, removalReason: 'closed case' });
    expect(code(await h.request('DELETE', `/api/risk/blocklist/${entry.id}?reason=again`, { token: admin.token }))).toBe(
      '404 BLOCKLIST_ENTRY_NOT_FOUND',
    );
    expect(code(await h.request('DELETE', '/api/risk/blocklist/not-a-uuid?reason=xyz', { token: admin.token }))).toBe(
      '400 VALIDATION_ERROR',
    );
    expect(code(await h.request('DELETE', `/api/risk/blocklist/${entry.id}?reason=xyz`))).toBe('401 UNAUTHORIZED');
  });

  it('compliance reads the stored decisions of an operation', async () => {
    const operationId = randomUUID();
    const party = { id: randomUUID(), kind: 'CUSTOMER' as const, status: 'active', kycTier: 'TIER_1' };
    await h.get(RiskService).evaluate({
      stage: 'CREATE',
      operationId,
      type: 'TRANSFER',
      amount: 1_000,
      currency: 'XAF',
      initiator: party,
      payer: party,
      payee: { ...party, id: randomUUID(), status: 'frozen' },
    });
    const res = await h.request('GET', `/api/risk/decisions?operationId=${operationId}`, { token: admin.token });
    expect(res.json()).toMatchObject({
      decisions: [{ operationId, stage: 'CREATE', outcome: 'REJECT', reasonCode: 'COUNTERPARTY_UNAVAILABLE' }],
    });
    expect(code(await h.request('GET', `/api/risk/decisions?operationId=${operationId}`, { token: customer.token }))).toBe('403 FORBIDDEN');
  });
});
