import { IdentityProvider } from '../src/identity/identity-provider';
import { ChallengeStore } from '../src/second-factor/challenge.store';
import { SessionService } from '../src/sessions/session.service';
import { LocalUserStore } from '../src/users/local-user.store';
import { PinLockout } from '../src/users/pin-lockout.service';
import { AuthHarness } from './support/auth-harness';

const PIN = '2580';

describe('auth: PIN lockout', () => {
  const h = new AuthHarness();
  // A 3 s base lock: long enough that the checks made while locked still find the lock on a loaded
  // machine (at 1 s it could end between two requests); the test ends each lock by moving its end
  // into the past rather than waiting it out.
  beforeAll(() => h.start({ PIN_LOCK_BASE_SEC: '3' }));
  afterAll(() => h.stop());

  const login = (phone: string, pin: string) => h.request('POST', '/auth/login', { body: { phone, pin } });
  /** The temporary lock's time is up (its end moved into the past; the failure count stays). */
  const endLock = (phone: string) => h.sql(`UPDATE auth.users SET locked_until = now() - interval '1 second' WHERE phone = $1`, [phone]);

  it('locks for a while after 5 failures, escalates, hard-locks at 10; success clears the count', async () => {
    const phone = '+237690000401';
    await h.createUser(phone, PIN);
    // 4 failures then a success: the count is cleared.
    for (let i = 0; i < 4; i++) expect((await login(phone, '1111')).json().code).toBe('INVALID_CREDENTIALS');
    expect((await login(phone, PIN)).statusCode).toBe(200);

    for (let i = 0; i < 4; i++) expect((await login(phone, '1111')).json().code).toBe('INVALID_CREDENTIALS');
    const fifth = await login(phone, '1111');
    expect(fifth.statusCode).toBe(423);
    expect(fifth.json().code).toBe('ACCOUNT_LOCKED');
    expect(fifth.headers['retry-after']).toBe('3');
    // While locked even the right PIN is refused, without being checked.
    const locked = await login(phone, PIN);
    expect(locked.json().code).toBe('ACCOUNT_LOCKED');
    expect(locked.json().message).toMatch(/locked for \d+ more seconds/);

    await endLock(phone);
    // 6th failure: locked again, twice as long (6 s).
    const sixth = await login(phone, '1111');
    expect(sixth.json().code).toBe('ACCOUNT_LOCKED');
    expect(sixth.headers['retry-after']).toBe('6');
    await endLock(phone);
    // Temporary lock over: the right PIN works and clears everything.
    expect((await login(phone, PIN)).statusCode).toBe(200);
  });

  it('hard-locks after 10 failures; only a PIN reset lifts it', async () => {
    const phone = '+237690000402';
    await h.createUser(phone, PIN);
    // Past the lock threshold the lock escalates (1, 2, 4, 8, 16 s): move its end by hand rather than wait.
    const { Client } = await import('pg');
    const pg = new Client({ connectionString: h.adminUrl });
    await pg.connect();
    try {
      const codes: string[] = [];
      for (let i = 0; i < 10; i++) {
        codes.push((await login(phone, '1111')).json().code as string);
        await pg.query(`UPDATE auth.users SET locked_until = NULL WHERE phone = $1`, [phone]);
      }
      expect(codes.slice(0, 4)).toEqual(Array(4).fill('INVALID_CREDENTIALS'));
      expect(codes.slice(4, 9)).toEqual(Array(5).fill('ACCOUNT_LOCKED'));
      expect(codes[9]).toBe('ACCOUNT_HARD_LOCKED');
      const escalation = await pg.query(`SELECT failed_pin_attempts, hard_locked FROM auth.users WHERE phone = $1`, [phone]);
      expect(escalation.rows[0]).toEqual({ failed_pin_attempts: 10, hard_locked: true });
    } finally {
      await pg.end();
    }
    expect((await login(phone, PIN)).json().code).toBe('ACCOUNT_HARD_LOCKED');
    // No time lifts it: with a temporary lock's end long past, still hard-locked.
    await endLock(phone);
    expect((await login(phone, PIN)).json().code).toBe('ACCOUNT_HARD_LOCKED');

    // PIN reset (request → verify → reset) lifts it.
    expect((await h.request('POST', '/auth/reset-pin/request', { body: { phone } })).statusCode).toBe(202);
    const verified = await h.request('POST', '/auth/reset-pin/verify-otp', { body: { phone, otp: await h.lastOtp(phone) } });
    expect(verified.statusCode).toBe(200);
    const resetToken = verified.json<{ resetToken: string }>().resetToken;
    const reset = await h.request('POST', '/auth/internal/reset-pin', { serviceKey: true, body: { phone, resetToken, newPin: '7391' } });
    expect(reset.statusCode).toBe(200);
    expect((await login(phone, PIN)).json().code).toBe('INVALID_CREDENTIALS');
    expect((await login(phone, '7391')).statusCode).toBe(200);
  });

  it('check-pin counts failures on the same account as login', async () => {
    const phone = '+237690000403';
    await h.createUser(phone, PIN);
    const { token } = await h.login(phone, PIN);
    expect((await h.request('POST', '/auth/check-pin', { token, body: { pin: PIN } })).json()).toEqual({ valid: true });
    for (let i = 0; i < 3; i++)
      expect((await h.request('POST', '/auth/check-pin', { token, body: { pin: '1111' } })).json().code).toBe('INVALID_PIN');
    expect((await login(phone, '1111')).json().code).toBe('INVALID_CREDENTIALS');
    expect((await h.request('POST', '/auth/check-pin', { token, body: { pin: '1111' } })).json().code).toBe('ACCOUNT_LOCKED');
    expect((await h.request('POST', '/auth/check-pin', { token, body: { pin: PIN } })).json().code).toBe('ACCOUNT_LOCKED');
  });
});

describe('auth: PIN lockout under a burst', () => {
  const h = new AuthHarness();
  // A 5-minute lock: with the 1 s one above, on a loaded machine the lock set by the fifth attempt
  // could end while twenty scrypt hashes were still queued, and a later attempt was rightly let in.
  beforeAll(() => h.start({ PIN_LOCK_BASE_SEC: '300' }));
  afterAll(() => h.stop());

  const login = (phone: string, pin: string) => h.request('POST', '/auth/login', { body: { phone, pin } });

  it('lets no more PINs be tried than the threshold, however many requests arrive at once', async () => {
    const phone = '+237690000404';
    await h.createUser(phone, PIN);
    const results = await Promise.all(Array.from({ length: 20 }, () => login(phone, '1111')));
    const codes = results.map((r) => r.json().code);
    // Refused unchecked: as locked once the fifth failure is counted, as in progress while the
    // checks in flight hold every attempt left before the lock.
    expect(codes.every((c) => c === 'INVALID_CREDENTIALS' || c === 'ACCOUNT_LOCKED' || c === 'PIN_CHECK_IN_PROGRESS')).toBe(true);
    expect(codes.filter((c) => c === 'INVALID_CREDENTIALS').length).toBeLessThanOrEqual(4);
    expect(codes).toContain('ACCOUNT_LOCKED');
    for (const busy of results.filter((r) => r.json().code === 'PIN_CHECK_IN_PROGRESS')) {
      expect(busy.statusCode).toBe(429);
      expect(busy.headers['retry-after']).toBe('1');
    }
    const { Client } = await import('pg');
    const pg = new Client({ connectionString: h.adminUrl });
    await pg.connect();
    try {
      // Exactly the threshold's worth of PINs were tried; the 15 others were refused unchecked, and
      // every check reserved has ended.
      const row = (await pg.query(`SELECT failed_pin_attempts, pin_checks_in_flight FROM auth.users WHERE phone = $1`, [phone])).rows[0];
      expect(row).toEqual({ failed_pin_attempts: 5, pin_checks_in_flight: 0 });
    } finally {
      await pg.end();
    }
  });
});

describe('auth: PIN checks in flight', () => {
  const h = new AuthHarness();
  beforeAll(() => h.start({ PIN_LOCK_BASE_SEC: '300' }));
  afterAll(() => h.stop());

  const login = (phone: string, pin: string) => h.request('POST', '/auth/login', { body: { phone, pin } });
  /** Sets the account's counters as if `inFlight` checks were reserved `agoSec` seconds ago and not ended. */
  const counters = (phone: string, failures: number, inFlight: number, agoSec = 0, lockedUntil = 'NULL') =>
    h.sql(
      `UPDATE auth.users SET failed_pin_attempts = $2, pin_checks_in_flight = $3,
              pin_checks_since = now() - make_interval(secs => $4), locked_until = ${lockedUntil} WHERE phone = $1`,
      [phone, failures, inFlight, agoSec],
    );
  const row = async (phone: string) =>
    (
      await h.sql<{ failed_pin_attempts: number; pin_checks_in_flight: number; locked: boolean }>(
        `SELECT failed_pin_attempts, pin_checks_in_flight, locked_until > now() IS TRUE AS locked FROM auth.users WHERE phone = $1`,
        [phone],
      )
    )[0];

  it('refuses a right PIN with 429 PIN_CHECK_IN_PROGRESS, never a lock, while the checks in flight fill every attempt left', async () => {
    const phone = '+237690000405';
    await h.createUser(phone, PIN);
    // Five checks in flight and no failure: a sixth would be one PIN too many if all five were wrong.
    await counters(phone, 0, 5);
    const busy = await login(phone, PIN);
    expect(busy.statusCode).toBe(429);
    expect(busy.json().code).toBe('PIN_CHECK_IN_PROGRESS');
    expect(busy.headers['retry-after']).toBe('1');
    // Refused unchecked: nothing counted, nothing locked.
    expect(await row(phone)).toEqual({ failed_pin_attempts: 0, pin_checks_in_flight: 5, locked: false });

    // Four in flight: a place is left. The right PIN ends its own check; the four others stay counted.
    await counters(phone, 0, 4);
    expect((await login(phone, PIN)).statusCode).toBe(200);
    expect(await row(phone)).toEqual({ failed_pin_attempts: 0, pin_checks_in_flight: 4, locked: false });
  });

  it('leaves as many places as attempts are left before the lock, and one after a lock has ended', async () => {
    const phone = '+237690000406';
    await h.createUser(phone, PIN);
    await counters(phone, 4, 1);
    expect((await login(phone, PIN)).json().code).toBe('PIN_CHECK_IN_PROGRESS');
    await counters(phone, 3, 1);
    expect((await login(phone, '1111')).json().code).toBe('INVALID_CREDENTIALS');
    expect(await row(phone)).toEqual({ failed_pin_attempts: 4, pin_checks_in_flight: 1, locked: false });

    // Past the threshold, with its lock over: one check at a time.
    await counters(phone, 6, 1, 0, `now() - interval '1 second'`);
    expect((await login(phone, PIN)).json().code).toBe('PIN_CHECK_IN_PROGRESS');
    await counters(phone, 6, 0, 0, `now() - interval '1 second'`);
    // Its failure locks again, doubled past the threshold (300 s × 2^(7 - 5)).
    const seventh = await login(phone, '1111');
    expect(seventh.statusCode).toBe(423);
    expect(seventh.headers['retry-after']).toBe('1200');
  });

  it('forgets a check that never ended (its process died) a minute after the latest reservation', async () => {
    const phone = '+237690000407';
    await h.createUser(phone, PIN);
    await counters(phone, 0, 5, 50);
    expect((await login(phone, PIN)).json().code).toBe('PIN_CHECK_IN_PROGRESS');
    await counters(phone, 0, 5, 61);
    expect((await login(phone, PIN)).statusCode).toBe(200);
    expect(await row(phone)).toEqual({ failed_pin_attempts: 0, pin_checks_in_flight: 0, locked: false });
  });

  it('drops the outcome of a check that outlived its reservation: nothing counted, no verdict told', async () => {
    const phone = '+237690000409';
    const { userId } = await h.createUser(phone, PIN);
    const lockout = h.app.get(PinLockout);
    const late = { userId, reservedAt: new Date(Date.now() - 61_000) };
    await counters(phone, 4, 1);
    // A wrong PIN found after its place was forgotten (and perhaps given to another check).
    await expect(lockout.recordFailure(late)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await expect(lockout.recordSuccess(late)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await expect(lockout.release(late, { verdict: true })).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(await row(phone)).toEqual({ failed_pin_attempts: 4, pin_checks_in_flight: 1, locked: false });
  });

  it('a right PIN does not sign in to an account hard-locked while it was being checked', async () => {
    const phone = '+237690000410';
    await h.createUser(phone, PIN);
    const lockout = h.app.get(PinLockout);
    const user = (await h.app.get(LocalUserStore).findByPhone(phone))!;
    const check = await lockout.reserve(user);
    await h.sql(`UPDATE auth.users SET failed_pin_attempts = 10, hard_locked = true WHERE phone = $1`, [phone]);
    await expect(lockout.recordSuccess(check)).rejects.toMatchObject({ code: 'ACCOUNT_HARD_LOCKED' });
    expect(await row(phone)).toEqual({ failed_pin_attempts: 10, pin_checks_in_flight: 0, locked: false });
  });

  it('lets a burst of right PINs through without ever answering that the account is locked', async () => {
    const phone = '+237690000408';
    await h.createUser(phone, PIN);
    const results = await Promise.all(Array.from({ length: 12 }, () => login(phone, PIN)));
    const statuses = results.map((r) => `${r.statusCode} ${r.statusCode === 200 ? 'OK' : r.json().code}`);
    expect(statuses.every((s) => s === '200 OK' || s === '429 PIN_CHECK_IN_PROGRESS')).toBe(true);
    expect(statuses.filter((s) => s === '200 OK').length).toBeGreaterThanOrEqual(5);
    expect(await row(phone)).toEqual({ failed_pin_attempts: 0, pin_checks_in_flight: 0, locked: false });
  });
});

describe('auth: PIN change and reset', () => {
  const h = new AuthHarness();
  beforeAll(() => h.start());
  afterAll(() => h.stop());

  /** Sessions of the account not ended. */
  const liveSessions = async (phone: string) =>
    (
      await h.sql<{ n: number }>(
        `SELECT count(*)::int AS n FROM auth.sessions s JOIN auth.users u ON u.id = s.user_id WHERE u.phone = $1 AND s.revoked_at IS NULL`,
        [phone],
      )
    )[0].n;
  /** A PIN reset done the way a customer does it (code by SMS, then the orchestrator's internal call). */
  const resetPin = async (phone: string, newPin: string) => {
    expect((await h.request('POST', '/auth/reset-pin/request', { body: { phone } })).statusCode).toBe(202);
    const verified = await h.request('POST', '/auth/reset-pin/verify-otp', { body: { phone, otp: await h.lastOtp(phone) } });
    const resetToken = verified.json<{ resetToken: string }>().resetToken;
    const reset = await h.request('POST', '/auth/internal/reset-pin', { serviceKey: true, body: { phone, resetToken, newPin } });
    expect(reset.statusCode).toBe(200);
  };
  /** Holds the next call of `method` on `target` once it is made, until `release` is called. */
  function holdNext<T extends object>(target: T, method: keyof T & string, after: 'before' | 'after') {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const held = new Promise<void>((resolve) => (reached = resolve));
    const original = (target[method] as (...args: unknown[]) => Promise<unknown>).bind(target);
    const spy = jest.spyOn(target, method as never).mockImplementationOnce((async (...args: unknown[]) => {
      if (after === 'before') {
        reached();
        await gate;
        return original(...args);
      }
      const result = await original(...args);
      reached();
      await gate;
      return result;
    }) as never);
    return { held, release: () => release(), restore: () => spy.mockRestore() };
  }

  /** A login with the account's PIN, held where `hold` holds it while `during` runs to its end; its answer. */
  async function loginHeldDuring(phone: string, hold: ReturnType<typeof holdNext>, during: () => Promise<void>) {
    try {
      const login = h.request('POST', '/auth/login', { body: { phone, pin: PIN } });
      await hold.held;
      await during();
      hold.release();
      return await login;
    } finally {
      hold.restore();
    }
  }

  it('a login whose check read the PIN a reset then replaced gets no session (and nothing is counted)', async () => {
    const phone = '+237690000511';
    await h.createUser(phone, PIN);
    // The old PIN is found right, then the reset runs to its end before the login records it.
    const res = await loginHeldDuring(phone, holdNext(h.app.get(IdentityProvider), 'verifyPin', 'after'), () => resetPin(phone, '7391'));
    expect([res.statusCode, res.json().code]).toEqual([401, 'INVALID_CREDENTIALS']);
    expect(await liveSessions(phone)).toBe(0);
    const counters = (await h.sql(`SELECT failed_pin_attempts, pin_checks_in_flight FROM auth.users WHERE phone = $1`, [phone]))[0];
    expect(counters).toEqual({ failed_pin_attempts: 0, pin_checks_in_flight: 0 });
    expect((await h.request('POST', '/auth/login', { body: { phone, pin: '7391' } })).statusCode).toBe(200);
  });

  it('a login recorded right just before a PIN change gets no session either, when the change comes before its session', async () => {
    const phone = '+237690000512';
    await h.createUser(phone, PIN);
    const owner = await h.login(phone, PIN);
    const res = await loginHeldDuring(phone, holdNext(h.app.get(SessionService), 'create', 'before'), async () => {
      const changed = await h.request('POST', '/auth/change-pin', { token: owner.token, body: { oldPin: PIN, newPin: '7391' } });
      expect(changed.json()).toEqual({ changed: true, revokedSessions: 0 });
    });
    expect([res.statusCode, res.json().code]).toEqual([401, 'INVALID_CREDENTIALS']);
    // The changer's own session only.
    expect(await liveSessions(phone)).toBe(1);
  });

  it('a PIN change whose old PIN was checked before a reset cannot undo that reset', async () => {
    const phone = '+237690000513';
    await h.createUser(phone, PIN);
    // Whoever knows the old PIN and holds a session changes it, while the owner resets it.
    const intruder = await h.login(phone, PIN);
    const hold = holdNext(h.app.get(IdentityProvider), 'setPin', 'before');
    let changed: Awaited<ReturnType<typeof h.request>>;
    try {
      const change = h.request('POST', '/auth/change-pin', { token: intruder.token, body: { oldPin: PIN, newPin: '8264' } });
      await hold.held;
      await resetPin(phone, '7391');
      hold.release();
      changed = await change;
    } finally {
      hold.restore();
    }
    expect([changed.statusCode, changed.json().code]).toEqual([403, 'INVALID_PIN']);
    expect((await h.request('POST', '/auth/login', { body: { phone, pin: '7391' } })).statusCode).toBe(200);
    expect((await h.request('POST', '/auth/login', { body: { phone, pin: '8264' } })).json().code).toBe('INVALID_CREDENTIALS');
    expect((await h.request('GET', '/auth/me', { token: intruder.token })).json().code).toBe('TOKEN_REVOKED');
  });

  it('a reset that cannot end the sessions changes nothing, and can be sent again', async () => {
    const phone = '+237690000514';
    await h.createUser(phone, PIN);
    const before = await h.login(phone, PIN);
    expect((await h.request('POST', '/auth/reset-pin/request', { body: { phone } })).statusCode).toBe(202);
    const verified = await h.request('POST', '/auth/reset-pin/verify-otp', { body: { phone, otp: await h.lastOtp(phone) } });
    const body = { phone, resetToken: verified.json<{ resetToken: string }>().resetToken, newPin: '7391' };
    // Redis fails as the user's staff challenges are ended, the last step of the reset's transaction.
    const challenges = jest.spyOn(h.app.get(ChallengeStore), 'revokeForUser').mockRejectedValueOnce(new Error('Redis went away'));
    try {
      expect((await h.request('POST', '/auth/internal/reset-pin', { serviceKey: true, body })).statusCode).toBe(500);
    } finally {
      challenges.mockRestore();
    }
    // Nothing of it happened: the old PIN, the session and the reset token are as they were.
    expect((await h.request('GET', '/auth/me', { token: before.token })).statusCode).toBe(200);
    expect((await h.request('POST', '/auth/login', { body: { phone, pin: '7391' } })).json().code).toBe('INVALID_CREDENTIALS');
    expect((await h.request('POST', '/auth/internal/reset-pin', { serviceKey: true, body })).statusCode).toBe(200);
    expect((await h.request('GET', '/auth/me', { token: before.token })).json().code).toBe('TOKEN_REVOKED');
    expect((await h.request('POST', '/auth/login', { body: { phone, pin: '7391' } })).statusCode).toBe(200);
  });

  it('change-pin needs the old PIN, applies the PIN rule and ends every other session', async () => {
    const phone = '+237690000501';
    await h.createUser(phone, PIN);
    const phoneA = await h.login(phone, PIN);
    const phoneB = await h.login(phone, PIN);
    const change = (oldPin: string, newPin: string) =>
      h.request('POST', '/auth/change-pin', { token: phoneA.token, body: { oldPin, newPin } });

    expect((await change('1111', '7391')).json().code).toBe('INVALID_PIN');
    for (const trivial of ['1234', '0000', '1212', '0501']) expect((await change(PIN, trivial)).json().code).toBe('PIN_POLICY_VIOLATION');
    expect((await change(PIN, PIN)).json().code).toBe('PIN_POLICY_VIOLATION');

    const ok = await change(PIN, '7391');
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ changed: true, revokedSessions: 1 });
    expect((await h.request('GET', '/auth/me', { token: phoneA.token })).statusCode).toBe(200);
    expect((await h.request('GET', '/auth/me', { token: phoneB.token })).json().code).toBe('TOKEN_REVOKED');
    expect((await h.request('POST', '/auth/refresh', { body: { refreshToken: phoneB.refreshToken } })).json().code).toBe('TOKEN_REVOKED');
    expect((await h.request('POST', '/auth/login', { body: { phone, pin: PIN } })).json().code).toBe('INVALID_CREDENTIALS');
    expect((await h.request('POST', '/auth/login', { body: { phone, pin: '7391' } })).statusCode).toBe(200);
  });

  it('a code checked by the public reset-pin/verify-otp still serves the reset the orchestrator runs with that code', async () => {
    // What pin.controller.ts documents: the public step consumes the code, and the orchestrator's
    // reset (internal verify-reset-pin-otp with the same code, then internal reset-pin) still works.
    const phone = '+237690000503';
    await h.createUser(phone, PIN);
    await h.request('POST', '/auth/reset-pin/request', { body: { phone } });
    const otp = await h.lastOtp(phone);
    const checked = await h.request('POST', '/auth/reset-pin/verify-otp', { body: { phone, otp } });
    expect(checked.statusCode).toBe(200);
    const internal = await h.request('POST', '/auth/internal/verify-reset-pin-otp', { serviceKey: true, body: { phone, otp } });
    expect(internal.statusCode).toBe(200);
    expect(internal.json().resetToken).toBe(checked.json().resetToken);
    const reset = await h.request('POST', '/auth/internal/reset-pin', {
      serviceKey: true,
      body: { phone, resetToken: internal.json().resetToken, newPin: '7391' },
    });
    expect(reset.json()).toMatchObject({ reset: true });
    expect((await h.request('POST', '/auth/login', { body: { phone, pin: '7391' } })).statusCode).toBe(200);
  });

  it('reset ends every session, and its token works once', async () => {
    const phone = '+237690000502';
    await h.createUser(phone, PIN);
    const session = await h.login(phone, PIN);
    await h.request('POST', '/auth/reset-pin/request', { body: { phone } });
    const otp = await h.lastOtp(phone);
    const verified = await h.request('POST', '/auth/reset-pin/verify-otp', { body: { phone, otp } });
    const { resetToken } = verified.json<{ resetToken: string }>();
    // Verifying does not reset.
    expect((await h.request('GET', '/auth/me', { token: session.token })).statusCode).toBe(200);

    const reset = (newPin: string, token = resetToken) =>
      h.request('POST', '/auth/internal/reset-pin', { serviceKey: true, body: { phone, resetToken: token, newPin } });
    expect((await reset('1234')).json().code).toBe('PIN_POLICY_VIOLATION');
    expect((await reset('7391', resetToken.slice(0, -2) + 'AA')).json().code).toBe('RESET_TOKEN_INVALID');
    expect((await reset('7391')).json()).toMatchObject({ reset: true });
    expect((await h.request('GET', '/auth/me', { token: session.token })).json().code).toBe('TOKEN_REVOKED');
    // Same token, another PIN: refused (a replay must be the same request).
    expect((await reset('8642')).json().code).toBe('RESET_TOKEN_INVALID');
    expect((await h.request('POST', '/auth/login', { body: { phone, pin: '7391' } })).statusCode).toBe(200);
    // A reset token of another phone does not work here.
    const other = await h.request('POST', '/auth/internal/reset-pin', {
      serviceKey: true,
      body: { phone: '+237690000501', resetToken, newPin: '9630' },
    });
    expect(other.json().code).toBe('RESET_TOKEN_INVALID');
  });
});
