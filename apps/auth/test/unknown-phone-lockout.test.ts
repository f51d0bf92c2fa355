import { Client } from 'pg';
import { AuthSecrets } from '../src/crypto/auth-secrets';
import { IdentityProvider } from '../src/identity/identity-provider';
import { AuthCleanup } from '../src/otp/otp-cleanup.service';
import { openApiOf, undocumented } from '../../../test/support/openapi-departures';
import { AuthHarness, type InjectResult } from './support/auth-harness';

const PIN = '2580';
const WRONG = '1111';
const BASE_SEC = 600;

/**
 * A phone with no account goes through the lock schedule of an account: nothing in the answers
 * (status, code, Retry-After, message) tells the two apart, at any step.
 */
describe('auth: the login lockout does not tell which phones have an account', () => {
  const h = new AuthHarness();
  let pg: Client;

  // A 10-minute base lock: long enough that no lock ends by itself during a step on a loaded
  // machine; the test ends each lock by hand between steps, as pin-lifecycle.test.ts does.
  beforeAll(async () => {
    await h.start({ PIN_LOCK_BASE_SEC: String(BASE_SEC) });
    pg = new Client({ connectionString: h.adminUrl });
    await pg.connect();
  });
  afterAll(async () => {
    await pg?.end();
    await h.stop();
  });

  const login = (phone: string, pin: string) => h.request('POST', '/auth/login', { body: { phone, pin } });
  const tagOf = (phone: string) => h.app.get(AuthSecrets).phoneTag('unknown-phone-lockout', phone);

  /** What a client sees, less what differs by nature between two requests (the request id, the lock's end instant). */
  const visible = (res: InjectResult) => {
    const { requestId: _requestId, ...body } = res.json<Record<string, unknown>>();
    if (typeof body.message === 'string') body.message = body.message.replace(/ \(until [^)]*\)/, '');
    return { status: res.statusCode, retryAfter: res.headers['retry-after'], body };
  };

  /** Moves the end of both locks (the account's and the unknown phone's) by SQL. */
  const setLockEnd = async (account: string, unknown: string, sql: string) => {
    await pg.query(`UPDATE auth.users SET locked_until = ${sql} WHERE phone = $1`, [account]);
    await pg.query(`UPDATE auth.unknown_phone_lockouts SET locked_until = ${sql} WHERE phone_tag = $1`, [tagOf(unknown)]);
  };

  /** An account and a phone with no account, each with `failures` wrong logins behind it. */
  const failedAlike = async (account: string, unknown: string, failures: number) => {
    await h.createUser(account, PIN);
    for (let i = 0; i < failures; i++) {
      await login(account, WRONG);
      await login(unknown, WRONG);
    }
  };

  it('gives the same statuses, codes and Retry-After for the same wrong logins, up to the hard lock', async () => {
    const account = '+237690000501';
    const unknown = '+237690000502';
    await h.createUser(account, PIN);

    /** One wrong login on each phone (the account may be sent its right PIN: while locked it is not looked at). */
    const both = async (accountPin = WRONG) => {
      const a = visible(await login(account, accountPin));
      const u = visible(await login(unknown, '9137'));
      expect(u).toEqual(a);
      return a;
    };

    for (let i = 1; i <= 4; i++) {
      const answer = await both();
      expect(answer).toMatchObject({ status: 401, retryAfter: undefined, body: { code: 'INVALID_CREDENTIALS' } });
    }
    // 5th failure: locked for the base time, then every further failure doubles the lock.
    for (const [n, seconds] of [
      [5, BASE_SEC],
      [6, 2 * BASE_SEC],
      [7, 4 * BASE_SEC],
      [8, 8 * BASE_SEC],
      [9, 16 * BASE_SEC],
    ]) {
      const answer = await both();
      expect([n, answer]).toEqual([
        n,
        { status: 423, retryAfter: String(seconds), body: expect.objectContaining({ code: 'ACCOUNT_LOCKED' }) },
      ]);
      expect(answer.body.message).toContain(`locked for ${seconds} more seconds`);
      // While locked: refused at once, the right PIN too, with the time left. Both locks are made to
      // end at the same instant so that the seconds left are the same.
      await setLockEnd(account, unknown, `now() + interval '1000.9 seconds'`);
      const probe = await both(PIN);
      expect(probe).toMatchObject({ status: 423, retryAfter: '1001', body: { code: 'ACCOUNT_LOCKED' } });
      await setLockEnd(account, unknown, `now() - interval '1 second'`);
    }
    // 10th failure: the hard lock, which no waiting lifts.
    expect(await both()).toMatchObject({ status: 423, retryAfter: undefined, body: { code: 'ACCOUNT_HARD_LOCKED' } });
    await setLockEnd(account, unknown, 'NULL');
    expect(await both(PIN)).toMatchObject({ status: 423, body: { code: 'ACCOUNT_HARD_LOCKED' } });

    // The counter of the unknown phone is kept under a keyed digest of the phone, never the phone.
    const rows = await pg.query(`SELECT phone_tag, failed_pin_attempts, hard_locked FROM auth.unknown_phone_lockouts`);
    expect(rows.rows).toEqual([{ phone_tag: tagOf(unknown), failed_pin_attempts: 10, hard_locked: true }]);
    expect(JSON.stringify(rows.rows)).not.toContain(unknown.slice(1));
  });

  it('locks nobody out: a phone that registers after its counter was hard-locked signs in with its own counter', async () => {
    const phone = '+237690000503';
    const codes: string[] = [];
    for (let i = 0; i < 10; i++) {
      codes.push((await login(phone, WRONG)).json().code as string);
      await pg.query(`UPDATE auth.unknown_phone_lockouts SET locked_until = NULL WHERE phone_tag = $1`, [tagOf(phone)]);
    }
    expect(codes).toEqual([...Array(4).fill('INVALID_CREDENTIALS'), ...Array(5).fill('ACCOUNT_LOCKED'), 'ACCOUNT_HARD_LOCKED']);
    await h.createUser(phone, PIN);
    expect((await login(phone, PIN)).statusCode).toBe(200);
    expect((await login(phone, WRONG)).json().code).toBe('INVALID_CREDENTIALS');
  });

  it('forgets a counter after its memory, and the periodic clean-up deletes forgotten ones (the table stays bounded)', async () => {
    const phone = '+237690000504';
    for (let i = 0; i < 4; i++) expect((await login(phone, WRONG)).json().code).toBe('INVALID_CREDENTIALS');
    await pg.query(`UPDATE auth.unknown_phone_lockouts SET forget_at = now() - interval '1 second' WHERE phone_tag = $1`, [tagOf(phone)]);
    // Forgotten: counting starts again (a 5th remembered failure would have locked).
    expect((await login(phone, WRONG)).json().code).toBe('INVALID_CREDENTIALS');
    const count = async () =>
      (await pg.query(`SELECT failed_pin_attempts FROM auth.unknown_phone_lockouts WHERE phone_tag = $1`, [tagOf(phone)])).rows[0];
    expect(await count()).toEqual({ failed_pin_attempts: 1 });

    await pg.query(
      `INSERT INTO auth.unknown_phone_lockouts (phone_tag, failed_pin_attempts, forget_at)
       SELECT 'stale-' || i, 3, now() - interval '1 hour' FROM generate_series(1, 3) AS i`,
    );
    const stale = async () =>
      Number((await pg.query(`SELECT count(*) AS n FROM auth.unknown_phone_lockouts WHERE forget_at <= now()`)).rows[0].n);
    expect(await stale()).toBe(3);
    // Logins leave them (no DELETE on the login path); a clean-up run deletes them, and only them.
    await login('+237690000505', WRONG);
    expect(await stale()).toBe(3);
    const live = Number((await pg.query(`SELECT count(*) AS n FROM auth.unknown_phone_lockouts WHERE forget_at > now()`)).rows[0].n);
    expect(await h.app.get(AuthCleanup).forgetUnknownPhones()).toBe(3);
    expect(await stale()).toBe(0);
    expect(Number((await pg.query(`SELECT count(*) AS n FROM auth.unknown_phone_lockouts WHERE forget_at > now()`)).rows[0].n)).toBe(live);
    expect(await count()).toEqual({ failed_pin_attempts: 1 });
    await h.app.get(AuthCleanup).run();
    expect(await stale()).toBe(0);
  });

  it('under a burst on an unknown phone, answers as for an account: no more than the threshold counted', async () => {
    const phone = '+237690000506';
    const results = await Promise.all(Array.from({ length: 20 }, () => login(phone, WRONG)));
    const codes = results.map((r) => r.json().code);
    expect(codes.every((c) => c === 'INVALID_CREDENTIALS' || c === 'ACCOUNT_LOCKED' || c === 'PIN_CHECK_IN_PROGRESS')).toBe(true);
    expect(codes.filter((c) => c === 'INVALID_CREDENTIALS').length).toBeLessThanOrEqual(4);
    expect(codes).toContain('ACCOUNT_LOCKED');
    const row = (
      await pg.query(`SELECT failed_pin_attempts, pin_checks_in_flight FROM auth.unknown_phone_lockouts WHERE phone_tag = $1`, [
        tagOf(phone),
      ])
    ).rows[0];
    expect(row).toEqual({ failed_pin_attempts: 5, pin_checks_in_flight: 0 });
  });

  it("judges a lock on the database's clock alone: a process clock 30 s off changes no answer", async () => {
    const account = '+237690000511';
    const unknown = '+237690000512';
    await failedAlike(account, unknown, 5);
    const skewed = async (offsetMs: number, accountPin: string) => {
      const real = Date.now.bind(Date);
      const now = jest.spyOn(Date, 'now').mockImplementation(() => real() + offsetMs);
      try {
        const a = visible(await login(account, accountPin));
        const u = visible(await login(unknown, '9137'));
        expect(u).toEqual(a);
        return a;
      } finally {
        now.mockRestore();
      }
    };
    // Ended half a second ago by the database, 29.5 s from now by a process 30 s behind: both take
    // the sixth try, which locks for twice the base.
    await setLockEnd(account, unknown, `now() - interval '0.5 seconds'`);
    const behind = await skewed(-30_000, WRONG);
    expect([behind.status, behind.body.code, behind.retryAfter]).toEqual([423, 'ACCOUNT_LOCKED', String(2 * BASE_SEC)]);
    // 10.5 s left by the database, already over for a process 30 s ahead: both refused unchecked,
    // with the database's seconds, the right PIN of the account included.
    await setLockEnd(account, unknown, `now() + interval '10.5 seconds'`);
    const ahead = await skewed(30_000, PIN);
    expect([ahead.status, ahead.body.code, ahead.retryAfter]).toEqual([423, 'ACCOUNT_LOCKED', '11']);
  });

  it('a check stopped by an error gives its place back on both, so the next answers stay alike', async () => {
    const account = '+237690000509';
    const unknown = '+237690000510';
    await failedAlike(account, unknown, 4);
    // The identity provider's database fails once for each (a pool that timed out, say).
    const verify = jest
      .spyOn(h.app.get(IdentityProvider), 'verifyPin')
      .mockRejectedValueOnce(new Error('pool timeout'))
      .mockRejectedValueOnce(new Error('pool timeout'));
    try {
      expect((await login(account, WRONG)).statusCode).toBe(500);
      expect((await login(unknown, WRONG)).statusCode).toBe(500);
    } finally {
      verify.mockRestore();
    }
    const a = visible(await login(account, WRONG));
    const u = visible(await login(unknown, WRONG));
    expect(a.body.code).toBe('ACCOUNT_LOCKED');
    expect(u).toEqual(a);
  });

  it('answers PIN_CHECK_IN_PROGRESS as for an account while the checks in flight fill every attempt left', async () => {
    const account = '+237690000507';
    const unknown = '+237690000508';
    await failedAlike(account, unknown, 1);
    await pg.query(`UPDATE auth.users SET pin_checks_in_flight = 4, pin_checks_since = now() WHERE phone = $1`, [account]);
    await pg.query(`UPDATE auth.unknown_phone_lockouts SET pin_checks_in_flight = 4, pin_checks_since = now() WHERE phone_tag = $1`, [
      tagOf(unknown),
    ]);
    const a = visible(await login(account, PIN));
    const u = visible(await login(unknown, '9137'));
    expect(a).toEqual({
      status: 429,
      retryAfter: '1',
      body: expect.objectContaining({ code: 'PIN_CHECK_IN_PROGRESS' }) as unknown,
    });
    expect(u).toEqual(a);
    // Refused unchecked on both: one failure each, still four in flight.
    const counted = async () => ({
      account: (await pg.query(`SELECT failed_pin_attempts, pin_checks_in_flight FROM auth.users WHERE phone = $1`, [account])).rows[0],
      unknown: (
        await pg.query(`SELECT failed_pin_attempts, pin_checks_in_flight FROM auth.unknown_phone_lockouts WHERE phone_tag = $1`, [
          tagOf(unknown),
        ])
      ).rows[0],
    });
    expect(await counted()).toEqual({
      account: { failed_pin_attempts: 1, pin_checks_in_flight: 4 },
      unknown: { failed_pin_attempts: 1, pin_checks_in_flight: 4 },
    });
  });
});

describe('auth: POST /auth/check-pin documents every error it answers', () => {
  const h = new AuthHarness();
  beforeAll(() => h.start());
  afterAll(() => h.stop());

  it('401 token errors and 400 VALIDATION_ERROR are in its OpenAPI, next to 403 and 423', async () => {
    const doc = await openApiOf(h.app);
    const responses = doc.paths['/auth/check-pin']?.post?.responses ?? {};
    for (const [status, codes] of [
      ['400', ['VALIDATION_ERROR']],
      ['401', ['TOKEN_MISSING', 'TOKEN_INVALID', 'TOKEN_EXPIRED', 'TOKEN_REVOKED']],
      ['403', ['INVALID_PIN']],
      ['423', ['ACCOUNT_LOCKED', 'ACCOUNT_HARD_LOCKED']],
    ] as const) {
      for (const code of codes)
        expect([status, code, responses[status]?.description ?? '']).toEqual([status, code, expect.stringContaining(code)]);
    }

    const phone = '+237690000507';
    await h.createUser(phone, PIN);
    const { token } = await h.login(phone, PIN);
    const answer = (res: InjectResult) => ({ status: res.statusCode, body: res.json() });
    const missing = await h.request('POST', '/auth/check-pin', { body: { pin: PIN } });
    const invalid = await h.request('POST', '/auth/check-pin', { token: 'not-a-token', body: { pin: PIN } });
    const malformed = await h.request('POST', '/auth/check-pin', { token, body: { pin: 'abcd' } });
    expect([missing.statusCode, missing.json().code]).toEqual([401, 'TOKEN_MISSING']);
    expect([invalid.statusCode, invalid.json().code]).toEqual([401, 'TOKEN_INVALID']);
    expect([malformed.statusCode, malformed.json().code]).toEqual([400, 'VALIDATION_ERROR']);
    for (const res of [missing, invalid, malformed]) expect(undocumented(doc, 'POST', '/auth/check-pin', answer(res))).toEqual([]);
  });
});
