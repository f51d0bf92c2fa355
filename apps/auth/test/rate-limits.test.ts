import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { createLogger } from '@mm/platform';
import { authApp } from '../src/auth.app';
import { boot } from '../../../test/support/boot';
import { AuthHarness, type InjectResult } from './support/auth-harness';

const PIN = '2580';

/** Small numbers so every boundary is reached in a few requests; long windows so none ends mid-test. */
const LIMITS = {
  TRUST_FORWARDED_FOR: 'true',
  LOGIN_LIMIT_PER_PHONE: '3',
  LOGIN_LIMIT_PER_IP: '5',
  LOGIN_LIMIT_WINDOW_SEC: '600',
  OTP_SEND_LIMIT_PER_PHONE: '2',
  OTP_SEND_LIMIT_PER_IP: '4',
  OTP_SEND_LIMIT_WINDOW_SEC: '600',
  OTP_VERIFY_LIMIT_PER_PHONE: '3',
  OTP_VERIFY_LIMIT_PER_IP: '5',
  OTP_VERIFY_LIMIT_WINDOW_SEC: '600',
  // The older OTP throttles out of the way: what is measured here is the new limits.
  OTP_MAX_PER_PHONE_PER_HOUR: '1000',
  OTP_MAX_PER_IP_PER_HOUR: '1000',
  PIN_LOCK_THRESHOLD: '2',
};

/** Every test uses its own phones and addresses: the buckets of one test never touch another's. */
let phoneSeq = 0;
const freshPhone = (): string => `+2376950${String(++phoneSeq).padStart(5, '0')}`;

function expectRateLimited(res: InjectResult, windowSec: number): void {
  expect(res.statusCode).toBe(429);
  expect(res.json()).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/retry in \d+ seconds/) });
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSec);
}

/** Let through by the rate limits (a 429 PIN_CHECK_IN_PROGRESS is the PIN lockout's answer, not theirs). */
const notLimited = (res: InjectResult): boolean => res.statusCode !== 429 || res.json().code !== 'RATE_LIMITED';

describe('auth: abuse limits per phone and per client address', () => {
  const h = new AuthHarness();
  beforeAll(() => h.start(LIMITS));
  afterAll(() => h.stop());

  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  const login = (phone: string, pin: string, ip: string) => h.request('POST', '/auth/login', { body: { phone, pin }, headers: from(ip) });

  describe('login', () => {
    it('allows the per-phone limit, refuses the next attempt with Retry-After, from any address', async () => {
      const phone = freshPhone();
      await h.createUser(phone, PIN);
      // Below and at the limit: a wrong PIN and right ones all count, none is refused.
      expect((await login(phone, '9999', '10.1.0.1')).json().code).toBe('INVALID_CREDENTIALS');
      expect((await login(phone, PIN, '10.1.0.1')).statusCode).toBe(200);
      expect((await login(phone, PIN, '10.1.0.2')).statusCode).toBe(200);
      // Above: refused before the PIN is looked at, whichever address asks and whatever the PIN.
      expectRateLimited(await login(phone, PIN, '10.1.0.1'), 600);
      expectRateLimited(await login(phone, PIN, '10.1.0.3'), 600);
      // The address itself is not limited: another phone from it still gets in.
      const other = freshPhone();
      await h.createUser(other, PIN);
      expect((await login(other, PIN, '10.1.0.1')).statusCode).toBe(200);
      // Counters live under the service's Redis prefix, and name the phone only by a keyed digest.
      const redis = new Redis(h.env.REDIS_URL!);
      try {
        const keys = await redis.keys(`${h.env.REDIS_PREFIX}:auth:rl:LOGIN:*`);
        expect(keys).toEqual(expect.arrayContaining([`${h.env.REDIS_PREFIX}:auth:rl:LOGIN:ip:10.1.0.1`]));
        expect(keys.filter((k) => k.includes(':phone:')).length).toBeGreaterThanOrEqual(2);
        expect(keys.join()).not.toContain(phone.slice(1));
      } finally {
        redis.disconnect();
      }
    });

    it('allows the per-address limit across phones, then refuses that address only', async () => {
      const ip = '10.2.0.1';
      const phones = Array.from({ length: 6 }, freshPhone);
      for (const phone of phones.slice(0, 5)) expect((await login(phone, '9999', ip)).json().code).toBe('INVALID_CREDENTIALS');
      expectRateLimited(await login(phones[5], '9999', ip), 600);
      // The refused attempt counted nowhere: that phone still has its whole budget elsewhere (its
      // wrong PINs lock it like an account's, 423 after PIN_LOCK_THRESHOLD, but are not rate limited).
      for (let i = 0; i < 3; i++) expect(notLimited(await login(phones[5], '9999', `10.2.1.${i}`))).toBe(true);
      expectRateLimited(await login(phones[5], '9999', '10.2.2.1'), 600);
    });

    it('counts the address the gateway appended (the last X-Forwarded-For entry), not the one the client wrote', async () => {
      for (let i = 0; i < 5; i++) {
        const res = await login(freshPhone(), '9999', `198.51.100.${i}, 10.3.0.1`);
        expect(res.json().code).toBe('INVALID_CREDENTIALS');
      }
      expectRateLimited(await login(freshPhone(), '9999', '198.51.100.99, 10.3.0.1'), 600);
    });

    it('counts IPv6 clients by their /64', async () => {
      for (let i = 1; i <= 5; i++) expect(notLimited(await login(freshPhone(), '9999', `2001:db8:3:4::${i.toString(16)}`))).toBe(true);
      expectRateLimited(await login(freshPhone(), '9999', '2001:db8:3:4:ffff:1:2:3'), 600);
      expect(notLimited(await login(freshPhone(), '9999', '2001:db8:3:5::1'))).toBe(true);
    });

    it('counts concurrent attempts exactly: of 10 at once for one phone, the limit gets through', async () => {
      const phone = freshPhone();
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => login(phone, '9999', `10.4.0.${i}`)));
      expect(results.filter(notLimited)).toHaveLength(3);
      for (const refused of results.filter((r) => !notLimited(r))) expectRateLimited(refused, 600);
    });

    it('counts malformed attempts per address (they never reach the PIN check)', async () => {
      const ip = '10.5.0.1';
      for (let i = 0; i < 5; i++) {
        const res = await h.request('POST', '/auth/login', { body: { phone: 'not-a-phone', pin: 'x' }, headers: from(ip) });
        expect(res.statusCode).toBe(400);
      }
      expectRateLimited(await login(freshPhone(), PIN, ip), 600);
    });

    it('leaves the per-account lockout as it was: the lock answers while the limit is not reached', async () => {
      const phone = freshPhone();
      await h.createUser(phone, PIN);
      expect((await login(phone, '9999', '10.6.0.1')).json().code).toBe('INVALID_CREDENTIALS');
      // Second failure: PIN_LOCK_THRESHOLD (2) reached, the account is locked.
      expect((await login(phone, '9999', '10.6.0.1')).json().code).toBe('ACCOUNT_LOCKED');
      const locked = await login(phone, PIN, '10.6.0.2');
      expect(locked.statusCode).toBe(423);
      expect(locked.json().code).toBe('ACCOUNT_LOCKED');
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      // Past the rate limit the answer is RATE_LIMITED, and the account is still locked behind it.
      expectRateLimited(await login(phone, PIN, '10.6.0.3'), 600);
      const { Client } = await import('pg');
      const pg = new Client({ connectionString: h.adminUrl });
      await pg.connect();
      try {
        const row = (await pg.query(`SELECT locked_until > now() AS locked FROM auth.users WHERE phone = $1`, [phone])).rows[0] as {
          locked: boolean;
        };
        expect(row.locked).toBe(true);
      } finally {
        await pg.end();
      }
    });
  });

  describe('OTP send (send-otp and reset-pin/request share one count)', () => {
    const send = (phone: string, ip: string, purpose = 'LOGIN') =>
      h.request('POST', '/auth/send-otp', { body: { phone, purpose }, headers: from(ip) });
    const requestReset = (phone: string, ip: string) =>
      h.request('POST', '/auth/reset-pin/request', { body: { phone }, headers: from(ip) });

    it('allows the per-phone limit across purposes and routes, the same for a phone without an account', async () => {
      const known = freshPhone();
      await h.createUser(known, PIN);
      const unknown = freshPhone();
      for (const phone of [known, unknown]) {
        expect((await send(phone, '10.7.0.1')).statusCode).toBe(202);
        expect((await requestReset(phone, '10.7.0.2')).statusCode).toBe(202);
        expectRateLimited(await send(phone, '10.7.0.3', 'INTENT'), 600);
        expectRateLimited(await requestReset(phone, '10.7.0.4'), 600);
      }
    });

    it('allows the per-address limit across phones, then refuses that address only', async () => {
      for (let i = 0; i < 4; i++) expect((await send(freshPhone(), '10.8.0.1')).statusCode).toBe(202);
      expectRateLimited(await requestReset(freshPhone(), '10.8.0.1'), 600);
      expect((await send(freshPhone(), '10.8.0.2')).statusCode).toBe(202);
    });
  });

  describe('OTP verify (verify-otp, reset-pin/verify-otp and reset-pin/confirm share one count)', () => {
    const verify = (phone: string, otp: string, ip: string, purpose = 'LOGIN') =>
      h.request('POST', '/auth/verify-otp', { body: { phone, purpose, otp }, headers: from(ip) });

    it('allows the per-phone limit, then refuses even the right code', async () => {
      const phone = freshPhone();
      await h.createUser(phone, PIN);
      expect((await h.request('POST', '/auth/send-otp', { body: { phone, purpose: 'LOGIN' }, headers: from('10.9.0.9') })).statusCode).toBe(
        202,
      );
      const code = await h.lastOtp(phone);
      const wrong = code === '000000' ? '000001' : '000000';
      expect((await verify(phone, wrong, '10.9.0.1')).json().code).toBe('OTP_INVALID');
      expect(
        (await h.request('POST', '/auth/reset-pin/verify-otp', { body: { phone, otp: wrong }, headers: from('10.9.0.2') })).json().code,
      ).toBe('OTP_EXPIRED');
      expect((await verify(phone, wrong, '10.9.0.3')).json().code).toBe('OTP_INVALID');
      expectRateLimited(await verify(phone, code, '10.9.0.4'), 600);
      // The refusal did not touch the code: it is still live (one wrong try left before 5).
      const { Client } = await import('pg');
      const pg = new Client({ connectionString: h.adminUrl });
      await pg.connect();
      try {
        const rows = (await pg.query(`SELECT attempts, consumed_at FROM auth.otp_codes WHERE phone = $1 AND purpose = 'LOGIN'`, [phone]))
          .rows as Array<{ attempts: number; consumed_at: Date | null }>;
        expect(rows).toEqual([{ attempts: 2, consumed_at: null }]);
      } finally {
        await pg.end();
      }
    });

    it('allows the per-address limit across phones and routes, the deprecated confirmation included', async () => {
      const ip = '10.10.0.1';
      for (let i = 0; i < 3; i++) expect((await verify(freshPhone(), '123456', ip)).json().code).toBe('OTP_EXPIRED');
      const confirm = await h.request('POST', '/auth/reset-pin/confirm', {
        body: { phone: freshPhone(), otp: '123456', newPin: '7391' },
        headers: from(ip),
      });
      expect(confirm.json().code).toBe('OTP_EXPIRED');
      expect(
        (await h.request('POST', '/auth/reset-pin/verify-otp', { body: { phone: freshPhone(), otp: '123456' }, headers: from(ip) })).json()
          .code,
      ).toBe('OTP_EXPIRED');
      const refused = await h.request('POST', '/auth/reset-pin/confirm', {
        body: { phone: freshPhone(), otp: '123456', newPin: '7391' },
        headers: from(ip),
      });
      expectRateLimited(refused, 600);
      // Deprecated route: its headers are there on the refusal too.
      expect(refused.headers.deprecation).toMatch(/^@\d+$/);
      expect((await verify(freshPhone(), '123456', '10.10.0.2')).json().code).toBe('OTP_EXPIRED');
    });
  });

  it('leaves the other routes alone: refresh, me, check-pin, JWKS', async () => {
    const phone = freshPhone();
    await h.createUser(phone, PIN);
    const { token, refreshToken } = await h.login(phone, PIN);
    for (let i = 0; i < 8; i++) {
      expect((await h.request('GET', '/auth/me', { token, headers: from('10.11.0.1') })).statusCode).toBe(200);
      expect((await h.request('GET', '/auth/.well-known/jwks.json', { headers: from('10.11.0.1') })).statusCode).toBe(200);
    }
    expect((await h.request('POST', '/auth/refresh', { body: { refreshToken }, headers: from('10.11.0.1') })).statusCode).toBe(200);
  });

  it('starts a new window once the Retry-After has passed', async () => {
    // A second instance on the same database and Redis, with a one-second window.
    const quick = await boot(authApp, { ...h.env, LOGIN_LIMIT_PER_PHONE: '1', LOGIN_LIMIT_WINDOW_SEC: '1' });
    try {
      const phone = freshPhone();
      const attempt = async () =>
        (await quick.app.inject({
          method: 'POST',
          url: '/auth/login',
          payload: { phone, pin: '9999' },
          headers: from('10.12.0.1'),
        })) as unknown as InjectResult;
      // Attempts until one is refused (the first window may end between two of them on a busy machine).
      let refused: InjectResult | undefined;
      for (let i = 0; i < 20 && !refused; i++) {
        const res = await attempt();
        if (res.statusCode === 429) refused = res;
      }
      expect(refused).toBeDefined();
      expectRateLimited(refused!, 1);
      // Then, polling with a deadline, an attempt is let through again.
      const deadline = Date.now() + 10_000;
      let reopened = false;
      while (!reopened && Date.now() < deadline) {
        // 401, or 423 once the phone's wrong PINs lock it: either way past the limiter
        reopened = notLimited(await attempt());
        if (!reopened) await new Promise((r) => setTimeout(r, 100));
      }
      expect(reopened).toBe(true);
    } finally {
      await quick.close();
    }
  });
});

describe('auth: abuse limits without Redis', () => {
  const h = new AuthHarness();
  const lines: string[] = [];

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    // Nothing listens on port 1: every Redis command fails at once.
    await h.start(
      { ...LIMITS, LOG_LEVEL: 'warn', REDIS_URL: 'redis://127.0.0.1:1', LOGIN_LIMIT_PER_PHONE: '1' },
      createLogger({ service: 'auth', level: 'warn', destination }),
    );
  });
  afterAll(() => h.stop());

  it('fails open: logins go through beyond the limit, and the outage is logged', async () => {
    const phone = freshPhone();
    await h.createUser(phone, PIN);
    for (let i = 0; i < 3; i++) expect((await h.request('POST', '/auth/login', { body: { phone, pin: PIN } })).statusCode).toBe(200);
    const warnings = lines.map((l) => JSON.parse(l) as { msg?: string }).filter((e) => e.msg?.startsWith('rate limiter unavailable'));
    // One line per 30 s at most, however many attempts: an outage does not flood the log.
    expect(warnings).toHaveLength(1);
  });

  it('without Redis a refresh works, and its retry is treated as a reuse (the grace window needs Redis)', async () => {
    const phone = freshPhone();
    await h.createUser(phone, PIN);
    const { refreshToken } = await h.login(phone, PIN);
    const first = await h.request('POST', '/auth/refresh', { body: { refreshToken } });
    expect(first.statusCode).toBe(200);
    const retry = await h.request('POST', '/auth/refresh', { body: { refreshToken } });
    expect(retry.json().code).toBe('REFRESH_TOKEN_REUSED');
  });
});
