import { randomUUID } from 'node:crypto';
import { PlatformHarness } from '../../apps/orchestrator/test/platform-harness';

const PIN = '2580';
const person = { firstName: 'Awa', lastName: 'Nkoulou', countryCode: 'CM' };

describe('registration: idempotency and concurrency', () => {
  const h = new PlatformHarness();
  beforeAll(() => h.start());
  afterAll(() => h.stop());

  const register = (phone: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
    h.call('POST', '/api/orchestrator/auth/register', { body: { phone, pin: PIN, ...person, ...extra }, headers });
  const users = (phone: string) => h.count(`SELECT count(*) n FROM auth.users WHERE phone = $1`, [phone]);

  it('the same registration twice with one key: one user, the first answer again', async () => {
    const phone = '+237690500001';
    const key = randomUUID();
    const first = await register(phone, { 'idempotency-key': key });
    const second = await register(phone, { 'idempotency-key': key });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body).toEqual(first.body);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await users(phone)).toBe(1);
    // the body's clientRequestId is the same key
    const third = await register(phone, {}, { clientRequestId: key });
    expect(third.body).toEqual(first.body);
    const mismatch = await register(phone, { 'idempotency-key': key }, { clientRequestId: 'other' });
    expect(mismatch.body.errors[0]).toMatchObject({ field: 'Idempotency-Key', code: 'INVALID_IDEMPOTENCY_KEY' });
  });

  it('10 concurrent registrations with one key: one run, ten identical answers', async () => {
    const phone = '+237690500002';
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 10 }, () => register(phone, { 'idempotency-key': key })));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((a) => a.body.userId)).size).toBe(1);
    expect(await users(phone)).toBe(1);
    expect(await h.count(`SELECT count(*) n FROM orchestrator.sagas WHERE phone = $1`, [phone])).toBe(1);
  });

  it('10 concurrent registrations of one phone without a key: exactly one user, the others 409 USER_ALREADY_EXISTS, no leftovers', async () => {
    const phone = '+237690500003';
    const answers = await Promise.all(Array.from({ length: 10 }, () => register(phone)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, ...Array(9).fill(409)]);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.code === 'USER_ALREADY_EXISTS')).toBe(true);
    expect(await users(phone)).toBe(1);
    expect(await h.count(`SELECT count(*) n FROM auth.idp_users WHERE phone = $1`, [phone])).toBe(1);
    expect(await h.count(`SELECT count(*) n FROM orchestrator.customers WHERE phone = $1`, [phone])).toBe(1);
    const winner = answers.find((a) => a.status === 201)!.body;
    // the losers undid only what they had made: the winner's account is whole
    const token = await h.login(phone, PIN);
    expect((await h.call('GET', '/api/orchestrator/me/wallet', { token })).body.walletId).toBe(winner.walletId);
    expect(await h.count(`SELECT count(*) n FROM orchestrator.sagas WHERE phone = $1 AND status = 'compensated'`, [phone])).toBe(9);
  });

  it('one key with another body: 422 IDEMPOTENCY_KEY_CONFLICT', async () => {
    const key = randomUUID();
    await register('+237690500004', { 'idempotency-key': key });
    const other = await register('+237690500005', { 'idempotency-key': key });
    expect([other.status, other.body.code]).toEqual([422, 'IDEMPOTENCY_KEY_CONFLICT']);
    expect(await users('+237690500005')).toBe(0);
  });

  it('a run that failed with a 5xx frees its key: the retry runs and succeeds', async () => {
    const phone = '+237690500006';
    const key = randomUUID();
    const failed = await register(phone, { 'idempotency-key': key, 'x-saga-fault': 'fail:WALLET' });
    expect(failed.status).toBe(502);
    const retry = await register(phone, { 'idempotency-key': key });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await users(phone)).toBe(1);
  });

  it('a run refused for a client reason answers the same refusal to its key', async () => {
    const phone = '+237690500007';
    await register(phone);
    const key = randomUUID();
    const taken = await register(phone, { 'idempotency-key': key });
    expect(taken.body.code).toBe('USER_ALREADY_EXISTS');
    const again = await register(phone, { 'idempotency-key': key });
    expect([again.status, again.body.code]).toEqual([409, 'USER_ALREADY_EXISTS']);
  });

  describe('bad input: stable codes, nothing created', () => {
    it.each([
      ['phone not E.164', { phone: '0690000001' }, 'phone', 'INVALID_PHONE_FORMAT'],
      ['PIN not 4-6 digits', { pin: '12a4' }, 'pin', 'INVALID_PIN_FORMAT'],
      ['unknown country', { countryCode: 'FR' }, 'countryCode', 'INVALID_COUNTRY_CODE'],
      ['blank name', { firstName: '   ' }, 'firstName', 'INVALID_MATCHES'],
      ['unknown field', { role: 'ADMIN' }, 'role', 'UNKNOWN_FIELD'],
    ])('%s', async (_label, patch, field, code) => {
      const res = await h.call('POST', '/api/orchestrator/auth/register', {
        body: { phone: '+237690500099', pin: PIN, ...person, ...patch },
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.errors).toContainEqual(expect.objectContaining({ field, code }));
      expect(await users('+237690500099')).toBe(0);
    });

    it('a weak PIN is PIN_POLICY_VIOLATION; an unknown staff role VALIDATION_ERROR', async () => {
      expect((await register('+237690500098', {}, { pin: '1111' })).body.code).toBe('PIN_POLICY_VIOLATION');
      const admin = await h.adminToken();
      const res = await h.call('POST', '/api/orchestrator/admin/staff', {
        token: admin,
        body: { phone: '+237690500097', pin: PIN, ...person, role: 'ROOT' },
      });
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.errors[0]).toMatchObject({ field: 'role' });
    });
  });
});
