import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { Redis } from 'ioredis';
import { AppException } from '@mm/errors';
import { REDIS } from '@mm/platform';
import { HourlyThrottle } from '../src/registration/hourly-throttle';
import { type Answer, PlatformHarness } from './platform-harness';

const PIN = '2580';
const person = { firstName: 'Awa', lastName: 'Nkoulou', countryCode: 'CM' };
const merchant = { businessName: 'Chez Awa', category: 'RETAIL' };
const PER_PHONE = 3;
const PER_IP = 5;

/**
 * The public registration routes are throttled per phone and per client address, before anything
 * is created; a retry of an admitted registration (same Idempotency-Key) is never counted or refused.
 * Every client of a test is on loopback, so each case speaks from its own 127.0.0.x address.
 */
describe('registration throttle (per phone, per client address)', () => {
  const h = new PlatformHarness();
  beforeAll(() =>
    h.start({
      orchestrator: {
        REGISTRATION_MAX_PER_PHONE_PER_HOUR: String(PER_PHONE),
        REGISTRATION_MAX_PER_IP_PER_HOUR: String(PER_IP),
        PIN_RESET_MAX_PER_IP_PER_HOUR: '2',
      },
    }),
  );
  afterAll(() => h.stop());

  /** A call to the orchestrator's public listener from the given loopback address (its socket peer). */
  function from(ip: string, path: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Answer> {
    const url = new URL(path, h.orchestrator.url);
    const payload = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          localAddress: ip,
          headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => {
            const responseHeaders = new Headers();
            for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
            resolve({ status: res.statusCode ?? 0, headers: responseHeaders, body: text ? JSON.parse(text) : undefined });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  const register = (ip: string, phone: string, headers: Record<string, string> = {}, path = '/api/orchestrator/auth/register') =>
    from(ip, path, { phone, pin: PIN, ...person, ...(path.endsWith('/merchant') ? merchant : {}) }, headers);
  const users = (phone: string) => h.count(`SELECT count(*) n FROM auth.users WHERE phone = $1`, [phone]);
  const sagas = (phone: string) => h.count(`SELECT count(*) n FROM orchestrator.sagas WHERE phone = $1`, [phone]);

  function expectLimited(res: Answer): void {
    expect([res.status, res.body.code]).toEqual([429, 'RATE_LIMITED']);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
  }

  it(`the ${PER_PHONE + 1}th registration of one phone in an hour is refused, from any address and on the old path too; its replay is not`, async () => {
    const phone = '+237690910001';
    const key = randomUUID();
    const first = await register('127.0.0.2', phone, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    // the phone's next tries (each one a new run, refused by auth's unique phone) count too
    for (let i = 1; i < PER_PHONE; i++) expect((await register('127.0.0.2', phone)).body.code).toBe('USER_ALREADY_EXISTS');

    expectLimited(await register('127.0.0.2', phone));
    expectLimited(await register('127.0.0.3', phone));
    expectLimited(await register('127.0.0.3', phone, {}, '/api/auth/register'));
    expect(await sagas(phone)).toBe(PER_PHONE);

    // the client retrying its accepted registration gets its answer, not a 429
    const replay = await register('127.0.0.2', phone, { 'idempotency-key': key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);

    // another phone from the same address is not affected
    expect((await register('127.0.0.2', '+237690910002')).status).toBe(201);
    expect(await users(phone)).toBe(1);
  });

  it(`the ${PER_IP + 1}th registration from one address in an hour is refused before anything is created; replays and other addresses are not`, async () => {
    const ip = '127.0.0.4';
    const keys: string[] = [];
    const accepted: Answer[] = [];
    // every public route shares the count: customer, merchant, agent, and the old /api/auth/register
    const paths = [
      '/api/orchestrator/auth/register',
      '/api/orchestrator/auth/register/merchant',
      '/api/orchestrator/auth/register/agent',
      '/api/auth/register',
      '/api/orchestrator/auth/register',
    ];
    for (let i = 0; i < PER_IP; i++) {
      keys.push(randomUUID());
      const res = await register(ip, `+23769092000${i}`, { 'idempotency-key': keys[i] }, paths[i % paths.length]);
      expect(res.status).toBe(201);
      accepted.push(res);
    }

    const refusedPhone = '+237690920099';
    const refusedKey = randomUUID();
    expectLimited(await register(ip, refusedPhone, { 'idempotency-key': refusedKey }));
    // the same refused request again is refused again: a refusal does not admit its key
    expectLimited(await register(ip, refusedPhone, { 'idempotency-key': refusedKey }));
    expectLimited(await register(ip, refusedPhone, {}, '/api/orchestrator/auth/register/merchant'));
    expect(await users(refusedPhone)).toBe(0);
    expect(await sagas(refusedPhone)).toBe(0);

    // every accepted registration replays from the full address
    for (let i = 0; i < PER_IP; i++) {
      const replay = await register(ip, `+23769092000${i}`, { 'idempotency-key': keys[i] }, paths[i % paths.length]);
      expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
      expect(replay.body).toEqual(accepted[i].body);
    }

    // another address registers the refused phone at once (a refused attempt counted nowhere)
    expect((await register('127.0.0.5', refusedPhone, { 'idempotency-key': refusedKey })).status).toBe(201);
    expect(await users(refusedPhone)).toBe(1);
  });

  it('concurrent copies of one registration (same Idempotency-Key) count once: all get the one answer', async () => {
    const phone = '+237690930001';
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 2 * PER_IP }, () => register('127.0.0.6', phone, { 'idempotency-key': key })));
    expect(answers.map((a) => a.status)).toEqual(Array(2 * PER_IP).fill(201));
    expect(new Set(answers.map((a) => a.body.userId)).size).toBe(1);
    expect(await sagas(phone)).toBe(1);
    // the address has used one of its runs, the phone one of its own
    for (let i = 1; i < PER_IP; i++) expect((await register('127.0.0.6', `+23769093010${i}`)).status).toBe(201);
    expectLimited(await register('127.0.0.6', '+237690930199'));
  });

  it('an administrator creating users is not throttled (authenticated, not a public route)', async () => {
    const ip = '127.0.0.7';
    for (let i = 0; i < PER_IP; i++) expect((await register(ip, `+23769094000${i}`)).status).toBe(201);
    expectLimited(await register(ip, '+237690940099'));
    const token = await h.adminToken();
    const staff = await from(
      ip,
      '/api/orchestrator/admin/staff',
      { phone: '+237690940098', pin: PIN, ...person, role: 'SUPPORT' },
      { authorization: `Bearer ${token}` },
    );
    expect(staff.status).toBe(201);
  });

  it("PIN reset keeps its own counts in the shared throttle: registration's do not use them up, nor the other way round", async () => {
    const ip = '127.0.0.8';
    const reset = () => from(ip, '/api/orchestrator/auth/reset-pin', { phone: '+237690950001', otp: '123456', newPin: '7391' });
    for (let i = 0; i < PER_IP - 1; i++) expect((await register(ip, `+23769095010${i}`)).status).toBe(201);
    expect((await reset()).body.code).toBe('OTP_EXPIRED');
    expect((await reset()).body.code).toBe('OTP_EXPIRED');
    expectLimited(await reset());
    expect((await register(ip, '+237690950199')).status).toBe(201);
  });

  it('Redis unreachable: the throttle lets the attempt through (fail open)', async () => {
    const down = new Redis({ host: '127.0.0.1', port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    down.on('error', () => undefined);
    try {
      await expect(new HourlyThrottle(down).consume('registration', [{ key: 'k', max: 1 }])).resolves.toBeUndefined();
    } finally {
      down.disconnect();
    }
  });

  it('a full count refuses with RATE_LIMITED, the refused attempt counted nowhere', async () => {
    const throttle = new HourlyThrottle(h.orchestrator.app.get<Redis>(REDIS));
    const bucket = (name: string, max: number) => ({ key: `throttle-test:${randomUUID()}:${name}`, max });
    const phone = bucket('phone', 1);
    const ip = bucket('ip', 2);
    await throttle.consume('test', [phone, ip]);
    const refused = await throttle.consume('test', [phone, ip]).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppException);
    expect((refused as AppException).code).toBe('RATE_LIMITED');
    // the address's count was not used by the refused attempt: one more phone still fits
    await throttle.consume('test', [bucket('other-phone', 1), ip]);
    await expect(throttle.consume('test', [bucket('third-phone', 1), ip])).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  });
});
