import { setTimeout as sleep } from 'node:timers/promises';
import { boot } from '../../../test/support/boot';
import { callerKey } from '../../../test/support/test-env';
import { base32Decode, totpCode, totpStep } from '@mm/platform';
import type { UserSecurityView } from '@mm/contracts';
import { enrolmentCodeIn } from '../../../tools/staff-sign-in';
import { authApp } from '../src/auth.app';
import { ChallengeStore } from '../src/second-factor/challenge.store';
import { AuthHarness, type JsonBody } from './support/auth-harness';

const PIN = '2580';
const ADMIN = { phone: '+237690031000', pin: '4826', secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' };
// Short, so that the expiry case waits little; long enough for every sign-in of this file to finish
// its two steps on a loaded machine (at 2 s, an enrolment in CI outlived its challenge).
const CHALLENGE_TTL_SEC = 8;

let next = 0;
const newPhone = () => `+2376900311${String(next++).padStart(2, '0')}`;

describe('auth: staff sign-in (second factor, shorter sessions, sign-out everywhere)', () => {
  const h = new AuthHarness();
  beforeAll(() =>
    h.start({
      BOOTSTRAP_ADMIN_PHONE: ADMIN.phone,
      BOOTSTRAP_ADMIN_PIN: ADMIN.pin,
      BOOTSTRAP_ADMIN_TOTP_SECRET: ADMIN.secret,
      SECOND_FACTOR_CHALLENGE_TTL_SEC: String(CHALLENGE_TTL_SEC),
    }),
  );
  afterAll(() => h.stop());

  const login = async (phone: string, pin = PIN) => h.request('POST', '/auth/login', { body: { phone, pin } });
  const second = (challengeToken: string, code: string, extra: { smsCode?: string; headers?: Record<string, string> } = {}) =>
    h.request('POST', '/auth/login/second-factor', { body: { challengeToken, code, smsCode: extra.smsCode }, headers: extra.headers });
  /** The messages the dev SMS driver "sent" to a phone, newest first. */
  const outbox = async (phone: string) =>
    (await h.request('GET', `/auth/dev/sms?phone=${encodeURIComponent(phone)}`)).json<{ messages: Array<{ text: string }> }>();
  /** The code the last enrolment challenge sent by SMS to the phone. */
  const smsCode = async (phone: string) => {
    const code = enrolmentCodeIn(await outbox(phone));
    if (!code) throw new Error(`no enrolment SMS for ${phone}`);
    return code;
  };
  const failures = async (userId: string) =>
    (await h.sql<{ n: number }>(`SELECT failed_pin_attempts n FROM auth.users WHERE id = $1`, [userId]))[0].n;

  /**
   * A staff member enrolled through the real enrolment, with the code of the current step: the
   * tests' next code is of the step after (`totpStep() + 1`), still in the window when the clock
   * has moved on meanwhile.
   */
  async function enrolled(roles: string[] = ['SUPPORT']): Promise<{ phone: string; userId: string; secret: Buffer; token: string }> {
    const phone = newPhone();
    const { userId } = await h.createUser(phone, PIN, roles);
    const challenge = (await login(phone)).json();
    const secret = base32Decode(challenge.secret as string)!;
    const done = await second(challenge.challengeToken as string, totpCode(secret, totpStep()), { smsCode: await smsCode(phone) });
    expect(done.statusCode).toBe(200);
    return { phone, userId, secret, token: done.json().token as string };
  }

  it.each([['SUPPORT'], ['COMPLIANCE'], ['ADMIN'], ['AUDITOR']])(
    'a %s login answers an enrolment challenge, not tokens; its first valid code enrols and signs in; the next login asks for the code',
    async (role) => {
      const phone = newPhone();
      await h.createUser(phone, PIN, [role]);
      const first = await login(phone);
      expect(first.statusCode).toBe(200);
      const challenge = first.json();
      expect(challenge).toMatchObject({ secondFactor: 'TOTP_ENROLMENT_REQUIRED', challengeToken: expect.stringMatching(/^sfc1\./) });
      expect(challenge.token).toBeUndefined();
      expect(challenge.refreshToken).toBeUndefined();
      expect(challenge.otpauthUri).toBe(
        `otpauth://totp/Mobile%20Money:${encodeURIComponent(phone)}?secret=${challenge.secret as string}&issuer=Mobile+Money&algorithm=SHA1&digits=6&period=30`,
      );
      const secret = base32Decode(challenge.secret as string)!;
      expect(secret).toHaveLength(20);
      // the enrolment challenge sent a code by SMS to the staff phone; it goes with the first TOTP code
      const [sms] = (await outbox(phone)).messages;
      expect(sms.text).toMatch(/^\d{6} is your code to set up staff sign-in/);
      const signedIn = await second(challenge.challengeToken as string, totpCode(secret, totpStep()), { smsCode: await smsCode(phone) });
      expect(signedIn.statusCode).toBe(200);
      const me = (await h.request('GET', '/auth/me', { token: signedIn.json().token as string })).json();
      expect(me).toMatchObject({ phone, roles: [role] });

      const again = (await login(phone)).json();
      expect(again).toEqual({ secondFactor: 'TOTP_REQUIRED', challengeToken: expect.any(String), expiresAt: expect.any(String) });
      expect((await second(again.challengeToken as string, totpCode(secret, totpStep() + 1))).statusCode).toBe(200);
    },
  );

  it('a customer login is unchanged: tokens at once, for ACCESS_TOKEN_TTL_SEC; staff tokens and sessions are shorter', async () => {
    const customer = newPhone();
    await h.createUser(customer, PIN, ['CUSTOMER']);
    const pair = (await login(customer)).json();
    expect(pair).toMatchObject({ tokenType: 'Bearer', token: expect.any(String), refreshToken: expect.any(String) });
    expect(pair.expiresIn).toBeGreaterThan(890);

    const staff = await enrolled(['COMPLIANCE']);
    const challenge = (await login(staff.phone)).json();
    const staffPair = (await second(challenge.challengeToken as string, totpCode(staff.secret, totpStep() + 1))).json();
    expect(staffPair.expiresIn).toBeGreaterThan(290);
    expect(staffPair.expiresIn).toBeLessThanOrEqual(300);
    const sessions = await h.sql<{ user_id: string; hours: number }>(
      `SELECT s.user_id, round(extract(epoch FROM s.expires_at - s.created_at) / 3600) AS hours
         FROM auth.sessions s JOIN auth.users u ON u.id = s.user_id WHERE u.phone = ANY ($1) ORDER BY s.created_at DESC`,
      [[customer, staff.phone]],
    );
    expect(sessions.filter((s) => s.user_id === staff.userId).map((s) => Number(s.hours))).toEqual([8, 8]);
    expect(sessions.filter((s) => s.user_id !== staff.userId).map((s) => Number(s.hours))).toEqual([720]);
    // A refresh keeps the staff lifetime.
    const refreshed = (await h.request('POST', '/auth/refresh', { body: { refreshToken: staffPair.refreshToken } })).json();
    expect(refreshed.expiresIn).toBeGreaterThan(290);
    expect(refreshed.expiresIn).toBeLessThanOrEqual(300);
  });

  it('a wrong code is SECOND_FACTOR_INVALID and counts on the account lock: the fifth failure locks, even with the right code after', async () => {
    const staff = await enrolled();
    const challenge = (await login(staff.phone)).json();
    const token = challenge.challengeToken as string;
    const right = totpCode(staff.secret, totpStep() + 1);
    const wrong = right === '000000' ? '111111' : '000000';
    // A right PIN is not a failure.
    expect(await failures(staff.userId)).toBe(0);
    for (let i = 0; i < 4; i++) expect((await second(token, wrong)).json<JsonBody>().code).toBe('SECOND_FACTOR_INVALID');
    expect(await failures(staff.userId)).toBe(4);
    const locking = await second(token, wrong);
    expect([locking.statusCode, locking.json().code]).toEqual([423, 'ACCOUNT_LOCKED']);
    expect(locking.headers['retry-after']).toBeDefined();
    expect((await second(token, right)).json().code).toBe('ACCOUNT_LOCKED');
    expect((await login(staff.phone)).json().code).toBe('ACCOUNT_LOCKED');
  });

  it('a right PIN does not clear the code failures (a stolen PIN buys no fresh guesses); a completed sign-in does', async () => {
    const wrongOnce = async (phone: string) => {
      const token = (await login(phone)).json().challengeToken as string;
      expect((await second(token, '000000')).statusCode).toBe(401);
    };
    const staff = await enrolled();
    await wrongOnce(staff.phone);
    await wrongOnce(staff.phone);
    expect(await failures(staff.userId)).toBe(2);
    const token = (await login(staff.phone)).json().challengeToken as string;
    expect((await second(token, totpCode(staff.secret, totpStep() + 1))).statusCode).toBe(200);
    expect(await failures(staff.userId)).toBe(0);

    // Five rounds of a right PIN and a wrong code: locked, as by five wrong PINs.
    const other = await enrolled();
    for (let i = 0; i < 4; i++) await wrongOnce(other.phone);
    const last = (await login(other.phone)).json().challengeToken as string;
    expect((await second(last, '000000')).json().code).toBe('ACCOUNT_LOCKED');
    expect((await login(other.phone)).json().code).toBe('ACCOUNT_LOCKED');
  });

  it('a code is accepted once: the same step again, or an earlier step of the window, is SECOND_FACTOR_CODE_USED', async () => {
    const staff = await enrolled();
    const later = totpStep() + 1;
    const a = (await login(staff.phone)).json().challengeToken as string;
    expect((await second(a, totpCode(staff.secret, later))).statusCode).toBe(200);
    const b = (await login(staff.phone)).json().challengeToken as string;
    const replay = await second(b, totpCode(staff.secret, later));
    expect([replay.statusCode, replay.json().code]).toEqual([401, 'SECOND_FACTOR_CODE_USED']);
    // The step before it, still in the window, and not used yet: refused all the same.
    expect((await second(b, totpCode(staff.secret, later - 1))).json().code).toBe('SECOND_FACTOR_CODE_USED');
    // Outside the window (three steps away) a code is simply wrong.
    expect((await second(b, totpCode(staff.secret, later + 3))).json().code).toBe('SECOND_FACTOR_INVALID');
  });

  it('a challenge opens one session: used, concurrent or expired it is SECOND_FACTOR_CHALLENGE_INVALID', async () => {
    const staff = await enrolled();
    const token = (await login(staff.phone)).json().challengeToken as string;
    const step = totpStep() + 1;
    const both = await Promise.all([second(token, totpCode(staff.secret, step)), second(token, totpCode(staff.secret, step))]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 401]);
    const again = await second(token, totpCode(staff.secret, step));
    expect([again.statusCode, again.json().code]).toEqual([401, 'SECOND_FACTOR_CHALLENGE_INVALID']);
    expect((await second('sfc1.not-a-challenge', '123456')).json().code).toBe('SECOND_FACTOR_CHALLENGE_INVALID');

    const late = (await login(staff.phone)).json().challengeToken as string;
    await sleep(CHALLENGE_TTL_SEC * 1000 + 500);
    expect((await second(late, totpCode(staff.secret, totpStep() + 1))).json().code).toBe('SECOND_FACTOR_CHALLENGE_INVALID');
  });

  it('a second step stopped by an error gives its place among the PIN checks in flight back', async () => {
    const staff = await enrolled();
    const token = (await login(staff.phone)).json().challengeToken as string;
    const inFlight = async () =>
      (await h.sql<{ n: number }>(`SELECT pin_checks_in_flight n FROM auth.users WHERE id = $1`, [staff.userId]))[0].n;
    // Redis fails as the challenge is used up, after the right code was checked.
    const consume = jest.spyOn(h.app.get(ChallengeStore), 'consume').mockRejectedValueOnce(new Error('Redis went away'));
    try {
      expect((await second(token, totpCode(staff.secret, totpStep() + 1))).statusCode).toBe(500);
    } finally {
      consume.mockRestore();
    }
    expect(await inFlight()).toBe(0);
    expect(await failures(staff.userId)).toBe(0);
    // The code was spent before Redis failed: sent again it is a replay, counted once, and that
    // check ends too.
    expect((await second(token, totpCode(staff.secret, totpStep() + 1))).json().code).toBe('SECOND_FACTOR_CODE_USED');
    expect(await failures(staff.userId)).toBe(1);
    expect(await inFlight()).toBe(0);
  });

  it('a challenge whose PIN check came before the PIN was replaced opens no session', async () => {
    const staff = await enrolled();
    // As if the first step had checked the PIN just before a reset that could not end this challenge
    // (it was stored after the reset ended the user's challenges).
    const { token } = await h.app.get(ChallengeStore).create({
      userId: staff.userId,
      pinCheckedAt: new Date(Date.now() - 5_000).toISOString(),
    });
    await h.sql(`UPDATE auth.users SET pin_set_at = now() WHERE id = $1`, [staff.userId]);
    const sessionsBefore = (
      await h.sql<{ n: number }>(`SELECT count(*)::int AS n FROM auth.sessions WHERE user_id = $1`, [staff.userId])
    )[0].n;
    const res = await second(token, totpCode(staff.secret, totpStep() + 1));
    expect([res.statusCode, res.json().code]).toEqual([401, 'SECOND_FACTOR_CHALLENGE_INVALID']);
    expect((await h.sql<{ n: number }>(`SELECT count(*)::int AS n FROM auth.sessions WHERE user_id = $1`, [staff.userId]))[0].n).toBe(
      sessionsBefore,
    );
    // Refused before its code was looked at: the same code still opens a session from a first step
    // made after the replacement.
    const fresh = (await login(staff.phone)).json().challengeToken as string;
    expect((await second(fresh, totpCode(staff.secret, totpStep() + 1))).statusCode).toBe(200);
  });

  it('refuses a malformed second step with field codes', async () => {
    const res = await h.request('POST', '/auth/login/second-factor', { body: { challengeToken: 42, code: '12a456' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'code', code: 'INVALID_TOTP_FORMAT' }),
        expect.objectContaining({ field: 'challengeToken' }),
      ]),
    );
  });

  it('a user disabled between the two steps gets no session', async () => {
    const staff = await enrolled();
    const token = (await login(staff.phone)).json().challengeToken as string;
    await h.sql(`UPDATE auth.users SET status = 'DISABLED' WHERE id = $1`, [staff.userId]);
    expect((await second(token, totpCode(staff.secret, totpStep() + 1))).json().code).toBe('ACCOUNT_DISABLED');
  });

  it('the bootstrap administrator is enrolled with BOOTSTRAP_ADMIN_TOTP_SECRET: its first login asks for the code', async () => {
    const challenge = (await login(ADMIN.phone, ADMIN.pin)).json();
    expect(challenge.secondFactor).toBe('TOTP_REQUIRED');
    const res = await second(challenge.challengeToken as string, totpCode(base32Decode(ADMIN.secret)!, totpStep()));
    expect(res.statusCode).toBe(200);
    const [row] = await h.sql<{ secret: Buffer }>(
      `SELECT secret FROM auth.second_factors f JOIN auth.users u ON u.id = f.user_id WHERE u.phone = $1`,
      [ADMIN.phone],
    );
    // Encrypted at rest: neither the raw secret nor its base32 appears in the row.
    expect(row.secret.includes(base32Decode(ADMIN.secret)!)).toBe(false);
    expect(row.secret.toString('latin1')).not.toContain(ADMIN.secret);
  });

  it('logout-all ends every session of the caller, this one included', async () => {
    const staff = await enrolled();
    const pair = (await second((await login(staff.phone)).json().challengeToken as string, totpCode(staff.secret, totpStep() + 1))).json();
    const tokens = [staff.token, pair.token as string];
    const res = await h.request('POST', '/auth/logout-all', { token: pair.token as string });
    // two sessions: the enrolment's and the one above
    expect([res.statusCode, res.json()]).toEqual([200, { revoked: 2 }]);
    for (const token of tokens) expect((await h.request('GET', '/auth/me', { token })).json().code).toBe('TOKEN_REVOKED');
    expect((await h.request('POST', '/auth/refresh', { body: { refreshToken: pair.refreshToken } })).json().code).toBe('TOKEN_REVOKED');
    expect((await h.request('POST', '/auth/logout-all')).json().code).toBe('TOKEN_MISSING');
  });

  describe('an enrolment needs the code sent by SMS to the staff phone, not only the PIN', () => {
    it('the PIN and a right TOTP code alone do not enrol: without the SMS code 400 (not counted), with a wrong one 401 (counted)', async () => {
      const phone = newPhone();
      const { userId } = await h.createUser(phone, PIN, ['COMPLIANCE']);
      const challenge = (await login(phone)).json();
      const token = challenge.challengeToken as string;
      const code = totpCode(base32Decode(challenge.secret as string)!, totpStep());
      const right = await smsCode(phone);
      const wrong = right === '000000' ? '111111' : '000000';

      const missing = await second(token, code);
      expect([missing.statusCode, missing.json().code]).toEqual([400, 'VALIDATION_ERROR']);
      expect(missing.json().errors).toEqual([expect.objectContaining({ field: 'smsCode', code: 'REQUIRED' })]);
      const malformed = await second(token, code, { smsCode: '12ab56' });
      expect(malformed.json().errors).toEqual([expect.objectContaining({ field: 'smsCode', code: 'INVALID_OTP_FORMAT' })]);
      expect(await failures(userId)).toBe(0);
      for (let i = 1; i <= 2; i++) {
        const guessed = await second(token, code, { smsCode: wrong });
        expect([guessed.statusCode, guessed.json().code]).toEqual([401, 'SECOND_FACTOR_SMS_CODE_INVALID']);
        expect(await failures(userId)).toBe(i);
      }
      expect(await h.sql(`SELECT user_id FROM auth.second_factors WHERE user_id = $1`, [userId])).toEqual([]);

      // whoever holds the phone completes the same challenge; the failures are cleared
      expect((await second(token, code, { smsCode: right })).statusCode).toBe(200);
      expect(await failures(userId)).toBe(0);
      expect(await h.sql(`SELECT user_id FROM auth.second_factors WHERE user_id = $1`, [userId])).toEqual([{ user_id: userId }]);
    });

    it('wrong SMS codes lock the account like wrong TOTP codes: the fifth locks, even with the right code after', async () => {
      const phone = newPhone();
      await h.createUser(phone, PIN, ['ADMIN']);
      const challenge = (await login(phone)).json();
      const token = challenge.challengeToken as string;
      const code = totpCode(base32Decode(challenge.secret as string)!, totpStep());
      const right = await smsCode(phone);
      const wrong = right === '000000' ? '111111' : '000000';
      for (let i = 0; i < 4; i++)
        expect((await second(token, code, { smsCode: wrong })).json().code).toBe('SECOND_FACTOR_SMS_CODE_INVALID');
      const locking = await second(token, code, { smsCode: wrong });
      expect([locking.statusCode, locking.json().code]).toEqual([423, 'ACCOUNT_LOCKED']);
      expect((await second(token, code, { smsCode: right })).json().code).toBe('ACCOUNT_LOCKED');
    });

    it('a new enrolment challenge sends a new code, which replaces the one before', async () => {
      const phone = newPhone();
      await h.createUser(phone, PIN, ['SUPPORT']);
      await login(phone);
      const first = await smsCode(phone);
      const challenge = (await login(phone)).json();
      const latest = await smsCode(phone);
      expect((await outbox(phone)).messages).toHaveLength(2);
      const code = totpCode(base32Decode(challenge.secret as string)!, totpStep());
      if (first !== latest)
        expect((await second(challenge.challengeToken as string, code, { smsCode: first })).json().code).toBe(
          'SECOND_FACTOR_SMS_CODE_INVALID',
        );
      expect((await second(challenge.challengeToken as string, code, { smsCode: latest })).statusCode).toBe(200);
      // used up by the enrolment: it opens nothing again
      const again = (await login(phone)).json();
      expect(again.secondFactor).toBe('TOTP_REQUIRED');
      expect((await outbox(phone)).messages).toHaveLength(2);
    });

    it("enrolment codes count on the phone's hourly SMS cap: beyond it the login answers 429 OTP_THROTTLED", async () => {
      const phone = newPhone();
      await h.createUser(phone, PIN, ['AUDITOR']);
      for (let i = 0; i < 5; i++) expect((await login(phone)).json().secondFactor).toBe('TOTP_ENROLMENT_REQUIRED');
      const throttled = await login(phone);
      expect([throttled.statusCode, throttled.json().code]).toEqual([429, 'OTP_THROTTLED']);
      expect(throttled.headers['retry-after']).toBeDefined();
      expect((await outbox(phone)).messages).toHaveLength(5);
    });
  });

  describe('internal routes (the orchestrator only)', () => {
    const internal = (method: 'GET' | 'POST', path: string, body?: unknown) =>
      h.request(method, `/auth/internal/users/${path}`, { serviceKey: true, body });

    it('GET security: live sessions with their user agent, ended ones with their reason, lockouts, second factor', async () => {
      const staff = await enrolled(['AUDITOR']);
      const challenge = (await login(staff.phone)).json();
      await second(challenge.challengeToken as string, totpCode(staff.secret, totpStep() + 1), {
        headers: { 'user-agent': 'console-test/1.0' },
      });
      await login(staff.phone, '1357');
      const view = (await internal('GET', `${staff.userId}/security`)).json<UserSecurityView>();
      expect(view).toMatchObject({
        userId: staff.userId,
        roles: ['AUDITOR'],
        status: 'ACTIVE',
        secondFactor: { required: true, method: 'TOTP', enrolled: true, enrolledAt: expect.any(String) },
        revokedSessions: [],
      });
      expect(view.sessions).toHaveLength(2);
      expect(view.sessionsTotal).toBe(2);
      expect(view.sessions[0]).toMatchObject({
        userAgent: 'console-test/1.0',
        lastUsedAt: expect.any(String),
        expiresAt: expect.any(String),
      });
      expect(view.lockouts).toEqual([{ kind: 'PIN', failures: 1, threshold: 5, lockedUntil: null, hardLocked: false }]);

      const customer = newPhone();
      const { userId } = await h.createUser(customer, PIN, ['CUSTOMER']);
      expect((await internal('GET', `${userId}/security`)).json().secondFactor).toEqual({
        required: false,
        method: 'TOTP',
        enrolled: false,
        enrolledAt: null,
      });
    });

    it('POST sessions/revoke-all ends them with the operator reason; a repeat ends none', async () => {
      const staff = await enrolled();
      const token = (
        await second((await login(staff.phone)).json().challengeToken as string, totpCode(staff.secret, totpStep() + 1))
      ).json().token as string;
      const res = await internal('POST', `${staff.userId}/sessions/revoke-all`, { reason: 'phone reported stolen' });
      expect([res.statusCode, res.json()]).toEqual([200, { revoked: 2 }]);
      expect((await h.request('GET', '/auth/me', { token })).json().code).toBe('TOKEN_REVOKED');
      expect((await internal('POST', `${staff.userId}/sessions/revoke-all`, { reason: 'again' })).json()).toEqual({ revoked: 0 });
      const view = (await internal('GET', `${staff.userId}/security`)).json<UserSecurityView>();
      expect(view.sessions).toEqual([]);
      expect(view.revokedSessions).toHaveLength(2);
      expect(view.revokedSessions[0]).toMatchObject({ reason: 'REVOKED_BY_OPERATOR', note: 'phone reported stolen' });
      expect((await internal('POST', `${staff.userId}/sessions/revoke-all`, { reason: '  ' })).json().code).toBe('VALIDATION_ERROR');
      expect((await internal('POST', `${staff.userId}/sessions/revoke-all`, {})).statusCode).toBe(400);
    });

    it('POST second-factor/reset removes the enrolment and ends the sessions: the next login enrols again', async () => {
      const staff = await enrolled();
      const res = await internal('POST', `${staff.userId}/second-factor/reset`);
      expect([res.statusCode, res.json()]).toEqual([200, { userId: staff.userId, wasEnrolled: true, sessionsRevoked: 1 }]);
      expect((await internal('GET', `${staff.userId}/security`)).json<UserSecurityView>().revokedSessions[0].reason).toBe(
        'SECOND_FACTOR_RESET',
      );
      const challenge = (await login(staff.phone)).json();
      expect(challenge.secondFactor).toBe('TOTP_ENROLMENT_REQUIRED');
      // The old secret no longer signs in, even with the phone's SMS code.
      const oldSecret = await second(challenge.challengeToken as string, totpCode(staff.secret, totpStep() + 1), {
        smsCode: await smsCode(staff.phone),
      });
      expect(oldSecret.json().code).toBe('SECOND_FACTOR_INVALID');
      expect((await internal('POST', `${staff.userId}/second-factor/reset`)).json()).toMatchObject({ wasEnrolled: false });
    });

    it('a challenge issued before a reset is refused after it', async () => {
      const staff = await enrolled();
      const token = (await login(staff.phone)).json().challengeToken as string;
      await internal('POST', `${staff.userId}/second-factor/reset`);
      expect((await second(token, totpCode(staff.secret, totpStep() + 1))).json().code).toBe('SECOND_FACTOR_CHALLENGE_INVALID');
    });

    it('ending the sessions ends the open challenges too: logout-all, an operator revoke-all, a second-factor reset', async () => {
      const staff = await enrolled();
      const code = () => totpCode(staff.secret, totpStep() + 1);
      const open = (await login(staff.phone)).json().challengeToken as string;
      expect((await h.request('POST', '/auth/logout-all', { token: staff.token })).statusCode).toBe(200);
      expect((await second(open, code())).json().code).toBe('SECOND_FACTOR_CHALLENGE_INVALID');

      const beforeRevoke = (await login(staff.phone)).json().challengeToken as string;
      expect((await internal('POST', `${staff.userId}/sessions/revoke-all`, { reason: 'phone reported stolen' })).statusCode).toBe(200);
      expect((await second(beforeRevoke, code())).json().code).toBe('SECOND_FACTOR_CHALLENGE_INVALID');

      // an enrolment challenge issued before a reset (the user had no enrolment either way)
      const phone = newPhone();
      const { userId } = await h.createUser(phone, PIN, ['SUPPORT']);
      const enrolment = (await login(phone)).json();
      expect((await internal('POST', `${userId}/second-factor/reset`)).json()).toMatchObject({ wasEnrolled: false });
      const late = await second(enrolment.challengeToken as string, totpCode(base32Decode(enrolment.secret as string)!, totpStep()), {
        smsCode: await smsCode(phone),
      });
      expect(late.json().code).toBe('SECOND_FACTOR_CHALLENGE_INVALID');

      // a challenge issued after all that signs in
      const fresh = (await login(staff.phone)).json().challengeToken as string;
      expect((await second(fresh, code())).statusCode).toBe(200);
    });

    it('GET security lists the 50 newest live sessions and counts them all', async () => {
      const staff = await enrolled();
      await h.sql(
        `INSERT INTO auth.sessions (id, user_id, created_at, expires_at)
         SELECT gen_random_uuid(), $1, now() - make_interval(mins => g), now() + interval '1 hour' FROM generate_series(1, 55) g`,
        [staff.userId],
      );
      const view = (await internal('GET', `${staff.userId}/security`)).json<UserSecurityView>();
      expect(view.sessionsTotal).toBe(56);
      expect(view.sessions).toHaveLength(50);
      const created = view.sessions.map((session) => Date.parse(session.createdAt));
      expect(created).toEqual([...created].sort((a, b) => b - a));
      // the enrolment's session, the newest, comes first
      expect(created[0]).toBeGreaterThan(Date.now() - 60_000);
    });

    it('an unknown user is USER_NOT_FOUND; another service is refused; no key is refused', async () => {
      const unknown = '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21';
      expect((await internal('GET', `${unknown}/security`)).json().code).toBe('USER_NOT_FOUND');
      expect((await internal('POST', `${unknown}/sessions/revoke-all`, { reason: 'x' })).json().code).toBe('USER_NOT_FOUND');
      expect((await internal('POST', `${unknown}/second-factor/reset`)).json().code).toBe('USER_NOT_FOUND');
      expect((await internal('GET', `not-a-uuid/security`)).statusCode).toBe(400);
      const staff = await enrolled();
      for (const [method, path] of [
        ['GET', `${staff.userId}/security`],
        ['POST', `${staff.userId}/sessions/revoke-all`],
        ['POST', `${staff.userId}/second-factor/reset`],
      ] as const) {
        const url = `/auth/internal/users/${path}`;
        const other = await h.request(method, url, { headers: { 'x-service-key': callerKey('partners') }, body: { reason: 'x' } });
        expect([other.statusCode, other.json().code]).toEqual([403, 'SERVICE_NOT_ALLOWED']);
        expect((await h.request(method, url, { body: { reason: 'x' } })).statusCode).toBe(401);
      }
      expect((await internal('GET', `${staff.userId}/security`)).json<UserSecurityView>().secondFactor.enrolled).toBe(true);
    });
  });

  it('a restart does not enrol the bootstrap administrator again once its second factor was reset', async () => {
    const [admin] = await h.sql<{ id: string }>(`SELECT id FROM auth.users WHERE phone = $1`, [ADMIN.phone]);
    const reset = await h.request('POST', `/auth/internal/users/${admin.id}/second-factor/reset`, { serviceKey: true });
    expect(reset.json()).toMatchObject({ wasEnrolled: true });
    // a second instance starts with the same BOOTSTRAP_ADMIN_TOTP_SECRET, as after a deploy
    const restarted = await boot(authApp, h.env);
    try {
      expect(await h.sql(`SELECT user_id FROM auth.second_factors WHERE user_id = $1`, [admin.id])).toEqual([]);
      expect((await login(ADMIN.phone, ADMIN.pin)).json().secondFactor).toBe('TOTP_ENROLMENT_REQUIRED');
    } finally {
      await restarted.close();
    }
  });

  it('the harness signs staff in by itself (enrols once, then codes of unused steps)', async () => {
    const phone = newPhone();
    await h.createUser(phone, PIN, ['ADMIN']);
    for (let i = 0; i < 3; i++) expect((await h.login(phone, PIN)).token).toEqual(expect.any(String));
  });
});
