import { randomUUID } from 'node:crypto';
import { isUuidV4 } from '@mm/platform';
import { ExpirySweeper } from '../src/sweeper/expiry-sweeper.service';
import { type PartnersHarness, startPartners } from './support/partners-harness';
import { mannWhitneyZ, median } from './support/stats';

const REQUEST = '/partners-public/connections/request';
let seq = 0;
const phone = () => `+23769${String(Date.now() % 1e4).padStart(4, '0')}${String(seq++).padStart(3, '0')}`;

describe('partners: connections (docs/partners.md "States", anti-enumeration, merchant side)', () => {
  let h: PartnersHarness;
  let key: string;
  let testKey: string;
  let integrationId: string;

  beforeAll(async () => {
    h = await startPartners({ PARTNERS_CONNECTION_REQUEST_MIN_MS: '40' });
    const created = await h.integration();
    key = created.apiKeys.live.key;
    testKey = created.apiKeys.test.key;
    integrationId = created.integration.id;
  });
  afterAll(() => h.close());

  const request = (merchantPhone: string, scopes = ['orders.write'], k = key) =>
    h.call('POST', REQUEST, { key: k, body: { merchantPhone, scopes } });
  const merchantAction = (merchantId: string, id: string, action: string) =>
    h.internal('POST', `/internal/partners/merchants/${merchantId}/connections/${id}/${action}`);

  it('a request to a merchant is pending for 7 days; asking again returns it (alreadyExisted), even concurrently', async () => {
    const p = phone();
    const merchant = h.directory.add(p);
    const before = Date.now();
    const first = await h.call('POST', REQUEST, {
      key,
      body: { merchantPhone: p, scopes: ['orders.write', 'orders.read'], requestedReason: 'Till 3' },
    });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['alreadyExisted', 'connectionId', 'expiresAt', 'status']);
    expect(first.body).toMatchObject({ status: 'pending', alreadyExisted: false });
    const expires = Date.parse(first.body.expiresAt);
    expect(expires - before).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(expires - before).toBeLessThan(7 * 86_400_000 + 60_000);

    const again = await Promise.all(Array.from({ length: 8 }, () => request(p, ['orders.read'])));
    for (const res of again) expect(res.body).toEqual({ ...first.body, alreadyExisted: true });

    const got = await h.call('GET', `/partners-public/connections/${first.body.connectionId}`, { key });
    // Until the merchant accepts, merchantId is a stand-in, never the merchant's own id.
    expect(got.body.merchantId).not.toBe(merchant.merchantId);
    expect(got.body).toEqual({
      id: first.body.connectionId,
      integrationId,
      merchantId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      status: 'pending',
      scopes: ['orders.write', 'orders.read'],
      requestedReason: 'Till 3',
      pendingExpiresAt: first.body.expiresAt,
      activatedAt: null,
      revokedAt: null,
      revokedBy: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      livemode: true,
    });
  });

  it('an unknown phone gets the same 200 and body shape, repeats like a real one, and reaches nobody', async () => {
    const p = phone();
    const merchantsBefore = h.directory.merchants.size;
    const first = await request(p);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['alreadyExisted', 'connectionId', 'expiresAt', 'status']);
    expect(first.body).toMatchObject({ status: 'pending', alreadyExisted: false });
    expect((await request(p)).body).toEqual({ ...first.body, alreadyExisted: true });
    const got = await h.call('GET', `/partners-public/connections/${first.body.connectionId}`, { key });
    expect(got.status).toBe(200);
    expect(isUuidV4(got.body.merchantId)).toBe(true);
    expect(h.directory.merchants.size).toBe(merchantsBefore);
    const { rows } = await h.admin.query(`SELECT merchant_id FROM partners.connections WHERE id = $1`, [first.body.connectionId]);
    expect(rows[0].merchant_id).toBeNull();
    const events = await h.admin.query(`SELECT count(*)::int AS n FROM partners.events WHERE subject_id = $1`, [first.body.connectionId]);
    expect(events.rows[0].n).toBe(0);
    // Orders cannot be created for it: it never becomes active.
    const order = await h.call('POST', '/partners-public/orders', { key, body: { merchantId: got.body.merchantId, amount: 100 } });
    expect(order.body.code).toBe('NO_ACTIVE_CONNECTION');
  });

  it('known and unknown phones cannot be told apart by response time (Mann–Whitney |z| < 3.29, α = 0.001)', async () => {
    const samples: Record<'known' | 'unknown', number[]> = { known: [], unknown: [] };
    for (let i = 0; i < 5; i++) {
      h.directory.add(`+23762000${String(i).padStart(4, '0')}`);
      await request(`+23762000${String(i).padStart(4, '0')}`);
      await request(`+23763000${String(i).padStart(4, '0')}`);
    }
    // Interleaved, fresh phones each time (both kinds do the insert path).
    for (let i = 0; i < 40; i++) {
      const kinds = i % 2 === 0 ? (['known', 'unknown'] as const) : (['unknown', 'known'] as const);
      for (const kind of kinds) {
        const p = kind === 'known' ? `+23764${String(i).padStart(7, '0')}` : `+23765${String(i).padStart(7, '0')}`;
        if (kind === 'known') h.directory.add(p);
        const t0 = performance.now();
        const res = await request(p);
        samples[kind].push(performance.now() - t0);
        expect(res.status).toBe(200);
      }
    }
    // The floor is there: no answer of either kind came back sooner than PARTNERS_CONNECTION_REQUEST_MIN_MS (40).
    expect(Math.min(...samples.known, ...samples.unknown)).toBeGreaterThanOrEqual(39);
    const z = mannWhitneyZ(samples.known, samples.unknown);
    const [mk, mu] = [median(samples.known), median(samples.unknown)];
    expect({ z: z < 3.29, medianGapMs: Math.abs(mk - mu) < Math.max(2, 0.25 * mk) }).toEqual({ z: true, medianGapMs: true });
  });

  it('GET of an unknown, a foreign or a malformed id: one and the same 404 CONNECTION_NOT_FOUND', async () => {
    const other = await h.integration('Other POS');
    const foreign = (await request(phone(), ['orders.write'], other.apiKeys.live.key)).body.connectionId;
    const answers = await Promise.all(
      [foreign, '00000000-0000-4000-8000-000000000000', 'not-a-uuid', '1e400'].map((id) =>
        h.call('GET', `/partners-public/connections/${id}`, { key }),
      ),
    );
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect({ ...res.body, requestId: 'x' }).toEqual({ code: 'CONNECTION_NOT_FOUND', message: 'Connection not found', requestId: 'x' });
    }
    const revoke = await h.call('POST', `/partners-public/connections/${foreign}/revoke`, { key });
    expect(revoke.body.code).toBe('CONNECTION_NOT_FOUND');
  });

  it.each([
    [{ merchantPhone: '690000001', scopes: ['orders.write'] }, 'merchantPhone', 'INVALID_PHONE_FORMAT'],
    [{ merchantPhone: '+237 690 000 001', scopes: ['orders.write'] }, 'merchantPhone', 'INVALID_PHONE_FORMAT'],
    [{ merchantPhone: 237690000001, scopes: ['orders.write'] }, 'merchantPhone', 'INVALID_PHONE_FORMAT'],
    [{ scopes: ['orders.write'] }, 'merchantPhone', 'INVALID_PHONE_FORMAT'],
    [{ merchantPhone: '+237690000001', scopes: [] }, 'scopes', 'INVALID_SCOPES'],
    [{ merchantPhone: '+237690000001' }, 'scopes', 'INVALID_SCOPES'],
    [{ merchantPhone: '+237690000001', scopes: 'orders.write' }, 'scopes', 'INVALID_SCOPES'],
    [{ merchantPhone: '+237690000001', scopes: ['orders.write', 'orders.delete'] }, 'scopes', 'INVALID_SCOPE'],
    [{ merchantPhone: '+237690000001', scopes: ['orders.write'], requestedReason: 'x'.repeat(501) }, 'requestedReason', 'INVALID_REASON'],
    [{ merchantPhone: '+237690000001', scopes: ['orders.write'], merchantId: 'x' }, 'merchantId', 'UNKNOWN_FIELD'],
  ])('%j → 400 VALIDATION_ERROR, %s: %s', async (body, field, code) => {
    const res = await h.call('POST', REQUEST, { key, body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors).toContainEqual({ field, code, message: expect.any(String) });
  });

  it("a pending merchantId tells nothing: a merchant's phone and an unknown one look alike across modes and integrations; the real id comes with acceptance", async () => {
    const merchantPhone = phone();
    const merchant = h.directory.add(merchantPhone);
    const unknownPhone = phone();
    const other = await h.integration();
    const keys = [key, testKey, other.apiKeys.live.key, other.apiKeys.test.key];
    const pendingIds = async (p: string) => {
      const ids: string[] = [];
      for (const k of keys) {
        const { connectionId } = (await request(p, ['orders.write'], k)).body;
        ids.push((await h.call('GET', `/partners-public/connections/${connectionId}`, { key: k })).body.merchantId);
      }
      return ids;
    };
    // The merchant's own id would be the same in all four answers; a pseudonym differs in each.
    const ofMerchant = await pendingIds(merchantPhone);
    const ofUnknown = await pendingIds(unknownPhone);
    expect(new Set(ofMerchant).size).toBe(4);
    expect(new Set(ofUnknown).size).toBe(4);
    expect(ofMerchant).not.toContain(merchant.merchantId);
    // Listed, the same stand-in.
    const listed = (await h.call('GET', '/partners-public/connections?status=pending', { key })).body.data;
    expect(listed.map((c: { merchantId: string }) => c.merchantId)).toEqual(expect.arrayContaining([ofMerchant[0], ofUnknown[0]]));

    // Accepted: the live connection of the first integration now shows the merchant's id, the one orders take.
    const { connectionId } = (await request(merchantPhone, ['orders.write'], key)).body;
    expect((await merchantAction(merchant.merchantId, connectionId, 'accept')).status).toBe(200);
    expect((await h.call('GET', `/partners-public/connections/${connectionId}`, { key })).body).toMatchObject({
      status: 'active',
      merchantId: merchant.merchantId,
    });
  });

  it('the merchant sees the request with its scopes in clear, accepts it (connection.activated, verified, sent once) and cannot accept it twice', async () => {
    const p = phone();
    const merchant = h.directory.add(p);
    const { connectionId } = (
      await h.call('POST', REQUEST, { key, body: { merchantPhone: p, scopes: ['orders.write'], requestedReason: 'Till 1' } })
    ).body;
    const list = await h.internal('GET', `/internal/partners/merchants/${merchant.merchantId}/connections`);
    expect(list.body.data).toEqual([
      expect.objectContaining({
        id: connectionId,
        integrationName: 'Caisse Rapide',
        status: 'pending',
        scopes: ['orders.write'],
        scopeDescriptions: ['Create payment orders (QR codes) in your name'],
        requestedReason: 'Till 1',
      }),
    ]);
    const accepted = await merchantAction(merchant.merchantId, connectionId, 'accept');
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'active', activatedAt: expect.any(String) });
    // docs/partners.md "States": accepting an active connection is 409 CONFLICT; nothing moves, nothing is sent again.
    const again = await merchantAction(merchant.merchantId, connectionId, 'accept');
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'CONFLICT', message: 'This connection is already active' });
    expect((await h.internal('GET', `/internal/partners/merchants/${merchant.merchantId}/connections`)).body.data).toEqual([
      expect.objectContaining({ id: connectionId, status: 'active', activatedAt: accepted.body.activatedAt }),
    ]);
    const { rows: activations } = await h.admin.query(
      `SELECT count(*)::int AS n FROM partners.events WHERE type = 'connection.activated' AND subject_id = $1`,
      [connectionId],
    );
    expect(activations[0].n).toBe(1);

    const hook = await h.receiver.waitFor((w) => w.body.event === 'connection.activated' && w.body.data.connectionId === connectionId);
    expect(hook.headers['svc-event']).toBe('connection.activated');
    expect(hook.headers['svc-event-id']).toBe(hook.body.id);
    expect(isUuidV4(hook.body.id)).toBe(true);
    expect(hook.body.data).toEqual({
      connectionId,
      merchantId: merchant.merchantId,
      scopes: ['orders.write'],
      activatedAt: accepted.body.activatedAt,
    });
    // Another merchant cannot act on it.
    const stranger = h.directory.add(phone());
    expect((await merchantAction(stranger.merchantId, connectionId, 'revoke')).body.code).toBe('CONNECTION_NOT_FOUND');
  });

  it('reject: pending → rejected (repeat harmless); a rejected request cannot be accepted', async () => {
    const p = phone();
    const merchant = h.directory.add(p);
    const { connectionId } = (await request(p)).body;
    expect((await merchantAction(merchant.merchantId, connectionId, 'reject')).body.status).toBe('rejected');
    expect((await merchantAction(merchant.merchantId, connectionId, 'reject')).body.status).toBe('rejected');
    expect((await merchantAction(merchant.merchantId, connectionId, 'accept')).body).toMatchObject({
      code: 'CONFLICT',
      message: 'A rejected connection cannot be accepted',
    });
    expect((await merchantAction(merchant.merchantId, connectionId, 'revoke')).body).toMatchObject({
      code: 'CONFLICT',
      message: 'A rejected connection cannot be revoked',
    });
    expect((await h.call('GET', `/partners-public/connections/${connectionId}`, { key })).body.status).toBe('rejected');
  });

  it('merchant revoke: active → revoked by merchant, with connection.revoked_by_merchant', async () => {
    const p = phone();
    const merchant = h.directory.add(p);
    const { connectionId } = (await request(p)).body;
    await merchantAction(merchant.merchantId, connectionId, 'accept');
    expect((await merchantAction(merchant.merchantId, connectionId, 'reject')).body).toMatchObject({
      code: 'CONFLICT',
      message: 'An active connection cannot be rejected: revoke it instead',
    });
    const revoked = await merchantAction(merchant.merchantId, connectionId, 'revoke');
    expect(revoked.body).toMatchObject({ status: 'revoked', revokedBy: 'merchant', revokedAt: expect.any(String) });
    const hook = await h.receiver.waitFor(
      (w) => w.body.event === 'connection.revoked_by_merchant' && w.body.data.connectionId === connectionId,
    );
    expect(hook.body.data).toEqual({ connectionId, merchantId: merchant.merchantId, revokedAt: revoked.body.revokedAt });
  });

  it('integration revoke: answers the revoked connection; repeating it answers it unchanged; an expired one is 409 CONFLICT', async () => {
    const p = phone();
    const merchant = h.directory.add(p);
    const { connectionId } = (await request(p)).body;
    await merchantAction(merchant.merchantId, connectionId, 'accept');
    const revoked = await h.call('POST', `/partners-public/connections/${connectionId}/revoke`, { key });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({
      id: connectionId,
      status: 'revoked',
      revokedBy: 'integration',
      revokedAt: expect.any(String),
      activatedAt: expect.any(String),
    });
    const again = await h.call('POST', `/partners-public/connections/${connectionId}/revoke`, { key });
    expect(again.body).toEqual(revoked.body);

    const q = phone();
    h.directory.add(q);
    const pending = (await request(q)).body.connectionId;
    await h.admin.query(`UPDATE partners.connections SET pending_expires_at = now() - interval '1 second' WHERE id = $1`, [pending]);
    const expired = await h.call('POST', `/partners-public/connections/${pending}/revoke`, { key });
    expect(expired.status).toBe(409);
    expect(expired.body).toMatchObject({ code: 'CONFLICT', message: 'An expired connection cannot be revoked' });
  });

  it('a pending request expires after its period: reads as expired, the sweeper records it, accept is 409, a new request starts afresh', async () => {
    const p = phone();
    const merchant = h.directory.add(p);
    const { connectionId } = (await request(p)).body;
    await h.admin.query(`UPDATE partners.connections SET pending_expires_at = now() - interval '1 second' WHERE id = $1`, [connectionId]);
    expect((await h.call('GET', `/partners-public/connections/${connectionId}`, { key })).body.status).toBe('expired');
    expect((await merchantAction(merchant.merchantId, connectionId, 'accept')).body).toMatchObject({
      code: 'CONFLICT',
      message: 'An expired connection cannot be accepted',
    });
    const swept = await h.partners.app.get(ExpirySweeper).sweep();
    expect(swept.connections).toBeGreaterThanOrEqual(1);
    const { rows } = await h.admin.query(`SELECT status, expired_at FROM partners.connections WHERE id = $1`, [connectionId]);
    expect(rows[0]).toMatchObject({ status: 'expired', expired_at: expect.any(Date) });
    const fresh = await request(p);
    expect(fresh.body).toMatchObject({ status: 'pending', alreadyExisted: false });
    expect(fresh.body.connectionId).not.toBe(connectionId);
  });

  it('admin revoke: revokedBy admin', async () => {
    const p = phone();
    const merchant = h.directory.add(p);
    const { connectionId } = (await request(p)).body;
    await merchantAction(merchant.merchantId, connectionId, 'accept');
    const res = await h.internal('POST', `/internal/partners/connections/${connectionId}/revoke`, { actorId: 'admin-1' });
    expect(res.body).toMatchObject({ status: 'revoked', revokedBy: 'admin' });
  });

  it('lists page with a cursor, newest first, without gaps or repeats; a bad cursor is 400', async () => {
    const other = await h.integration('Paging POS');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await request(phone(), ['orders.write'], other.apiKeys.live.key)).body.connectionId);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await h.call('GET', `/partners-public/connections?limit=2${cursor ? `&cursor=${cursor}` : ''}`, {
        key: other.apiKeys.live.key,
      });
      seen.push(...res.body.data.map((c: { id: string }) => c.id));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
    const pendingOnly = await h.call('GET', '/partners-public/connections?status=active', { key: other.apiKeys.live.key });
    expect(pendingOnly.body.data).toEqual([]);
    const bad = await h.call('GET', '/partners-public/connections?cursor=zzz&limit=500&status=gone', { key: other.apiKeys.live.key });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { code: string }) => e.code).sort()).toEqual(['INVALID_LIMIT', 'INVALID_STATUS']);
    const badCursor = await h.call('GET', '/partners-public/connections?cursor=zzz', { key: other.apiKeys.live.key });
    expect(badCursor.body.errors).toEqual([{ field: 'cursor', code: 'INVALID_CURSOR', message: expect.any(String) }]);
    // A date JavaScript can hold but this API never writes into a cursor: refused like any other forgery.
    const farFuture = Buffer.from(`+275760-09-13T00:00:00.000Z|${randomUUID()}`).toString('base64url');
    const outOfRange = await h.call('GET', `/partners-public/connections?cursor=${farFuture}`, { key: other.apiKeys.live.key });
    expect(outOfRange.status).toBe(400);
    expect(outOfRange.body.errors).toEqual([{ field: 'cursor', code: 'INVALID_CURSOR', message: expect.any(String) }]);
  });

  it('test mode: requests never reach the merchant; the test helper activates them; a live key cannot use the helper', async () => {
    const p = phone();
    const merchant = h.directory.add(p);
    const { connectionId } = (await request(p, ['orders.write'], testKey)).body;
    const merchantList = await h.internal('GET', `/internal/partners/merchants/${merchant.merchantId}/connections`);
    expect(merchantList.body.data).toEqual([]);
    expect((await merchantAction(merchant.merchantId, connectionId, 'accept')).body.code).toBe('CONNECTION_NOT_FOUND');
    const live = await h.call('POST', `/partners-public/test-helpers/connections/${connectionId}/activate`, { key });
    expect(live.status).toBe(403);
    expect(live.body.code).toBe('TEST_MODE_ONLY');
    const activated = await h.call('POST', `/partners-public/test-helpers/connections/${connectionId}/activate`, { key: testKey });
    expect(activated.body).toMatchObject({ status: 'active', livemode: false });
    // Test mode never looked the phone up: even active, its merchantId is a stand-in, not the merchant's.
    expect(activated.body.merchantId).not.toBe(merchant.merchantId);
    await h.receiver.waitFor((w) => w.body.event === 'connection.activated' && w.body.data.connectionId === connectionId);
  });
});
