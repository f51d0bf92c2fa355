import { randomUUID } from 'node:crypto';
import { AuthCleanup } from '../src/otp/otp-cleanup.service';
import { AuthHarness, type InjectResult } from './support/auth-harness';

const PIN = '2580';

const visible = (res: InjectResult) => {
  const { requestId: _requestId, ...body } = res.json<Record<string, unknown>>();
  return { status: res.statusCode, body };
};

describe('auth: a disabled account keeps its PIN reset; a stand-in replaces only codes nobody can use', () => {
  const h = new AuthHarness();
  beforeAll(() => h.start());
  afterAll(() => h.stop());

  const disable = async (userId: string) => {
    const res = await h.request('PUT' as 'POST', `/auth/internal/users/${userId}/status`, {
      serviceKey: true,
      body: { status: 'DISABLED' },
    });
    expect(res.statusCode).toBe(200);
  };
  const sendOtp = (phone: string, purpose: string) => h.request('POST', '/auth/send-otp', { body: { phone, purpose } });
  const liveRows = (phone: string) =>
    h.sql<{ decoy: boolean }>(
      `SELECT decoy FROM auth.otp_codes WHERE phone = $1 AND consumed_at IS NULL AND discarded_at IS NULL ORDER BY created_at`,
      [phone],
    );

  it('send-otp PIN_RESET sends a disabled account a real code, as reset-pin/request does: nobody can turn its reset code into a stand-in', async () => {
    const phone = '+237690001001';
    const { userId } = await h.createUser(phone, PIN);
    await disable(userId);
    expect((await h.request('POST', '/auth/reset-pin/request', { body: { phone } })).statusCode).toBe(202);
    const first = await h.lastOtp(phone);

    // Anyone may ask: the phone gets a new real code (the usual resend), never a stand-in.
    const again = await sendOtp(phone, 'PIN_RESET');
    const unknown = await sendOtp('+237690001051', 'PIN_RESET');
    expect(visible(again)).toEqual(visible(unknown));
    expect(again.statusCode).toBe(202);
    expect(await liveRows(phone)).toEqual([{ decoy: false }]);
    const second = await h.lastOtp(phone);
    expect(second).toMatch(/^\d{6}$/);

    const verified = await h.request('POST', '/auth/reset-pin/verify-otp', { body: { phone, otp: second } });
    expect(verified.statusCode).toBe(200);
    expect(verified.json()).toMatchObject({ verified: true, purpose: 'PIN_RESET', resetToken: expect.any(String) });
    if (first !== second) {
      // the code replaced is dead, as after any resend
      const old = await h.request('POST', '/auth/reset-pin/verify-otp', { body: { phone, otp: first } });
      expect(old.statusCode).toBe(400);
    }
  });

  it('a LOGIN code of an account disabled after it went out is replaced by a stand-in, so the phone then answers like one without an account', async () => {
    const phone = '+237690001002';
    const stranger = '+237690001052';
    const { userId } = await h.createUser(phone, PIN);
    expect((await sendOtp(phone, 'LOGIN')).statusCode).toBe(202);
    const code = await h.lastOtp(phone);
    await disable(userId);
    expect(visible(await sendOtp(phone, 'LOGIN'))).toEqual(visible(await sendOtp(stranger, 'LOGIN')));
    expect(await liveRows(phone)).toEqual([{ decoy: true }]);
    const guess = (p: string) => h.request('POST', '/auth/verify-otp', { body: { phone: p, purpose: 'LOGIN', otp: code } });
    const [mine, theirs] = [await guess(phone), await guess(stranger)];
    expect(visible(mine)).toEqual(visible(theirs));
    expect(mine.json()).toMatchObject({ code: 'OTP_INVALID' });
  });

  it('sends at the same moment (no cooldown) all answer 202, leave one live code, and no SMS carries a code that was not stored', async () => {
    const phone = '+237690001004';
    const stranger = '+237690001054';
    await h.createUser(phone, PIN);
    for (const p of [phone, stranger]) {
      // five: the hourly cap per phone (OTP_MAX_PER_PHONE_PER_HOUR)
      const answers = await Promise.all(Array.from({ length: 5 }, () => sendOtp(p, 'LOGIN')));
      expect(answers.map((a) => a.statusCode)).toEqual(Array(5).fill(202));
      expect(await liveRows(p)).toEqual([{ decoy: p === stranger }]);
    }
    const stored = await h.sql<{ n: number }>(`SELECT count(*)::int AS n FROM auth.otp_codes WHERE phone = $1`, [phone]);
    const sms = async () =>
      (await h.request('GET', `/auth/dev/sms?phone=${encodeURIComponent(phone)}`)).json<{ messages: unknown[] }>().messages.length;
    // The SMS go out after the answers: wait for them (no code can be sent without its row).
    for (let i = 0; i < 100 && (await sms()) < stored[0].n; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await sms()).toBe(stored[0].n);
  });

  it('an expired code, or another stand-in, is replaced by the stand-in', async () => {
    const phone = '+237690001003';
    const { userId } = await h.createUser(phone, PIN);
    expect((await sendOtp(phone, 'LOGIN')).statusCode).toBe(202);
    await disable(userId);
    await h.sql(`UPDATE auth.otp_codes SET expires_at = now() - interval '1 second' WHERE phone = $1`, [phone]);
    await sendOtp(phone, 'LOGIN');
    await sendOtp(phone, 'LOGIN');
    expect(await h.otpStates(phone)).toEqual([
      { decoy: false, live: false },
      { decoy: true, live: false },
      { decoy: true, live: true },
    ]);
  });
});

describe('auth: old code rows are deleted, live and recent ones kept', () => {
  const h = new AuthHarness();
  // The shortest retention the config allows (1 h; the proof window is 10 min).
  beforeAll(() => h.start({ OTP_RETENTION_SEC: '3600' }));
  afterAll(() => h.stop());

  const rowsOf = (phone: string) => h.sql<{ id: string }>(`SELECT id FROM auth.otp_codes WHERE phone = $1 ORDER BY created_at`, [phone]);
  const age = (phone: string, set: string) => h.sql(`UPDATE auth.otp_codes SET ${set} WHERE phone = $1`, [phone]);

  it('deletes codes that expired (used or not, stand-ins too) longer ago than the retention, nothing else', async () => {
    const [oldUnused, oldUsed, oldDecoy, recentExpired, live, inProofWindow] = [
      '+237690001101',
      '+237690001102',
      '+237690001151',
      '+237690001104',
      '+237690001105',
      '+237690001106',
    ];
    for (const phone of [oldUnused, oldUsed, recentExpired, live, inProofWindow]) await h.createUser(phone, PIN);
    for (const phone of [oldUnused, oldUsed, oldDecoy, recentExpired, live, inProofWindow])
      expect((await h.request('POST', '/auth/reset-pin/request', { body: { phone } })).statusCode).toBe(202);
    const verifyReset = (phone: string, otp: string) =>
      h.request('POST', '/auth/internal/verify-reset-pin-otp', { serviceKey: true, body: { phone, otp } });
    expect((await verifyReset(oldUsed, await h.lastOtp(oldUsed))).statusCode).toBe(200);
    const windowCode = await h.lastOtp(inProofWindow);
    const first = await verifyReset(inProofWindow, windowCode);
    expect(first.statusCode).toBe(200);

    const old = `created_at = now() - interval '2 hours', expires_at = now() - interval '2 hours' + interval '5 minutes'`;
    await age(oldUnused, old);
    await age(oldDecoy, old);
    await age(oldUsed, `${old}, consumed_at = now() - interval '2 hours' + interval '1 minute'`);
    await age(recentExpired, `created_at = now() - interval '50 minutes', expires_at = now() - interval '45 minutes'`);
    // Used 5 minutes ago, its code already expired: the proof window is still open.
    await age(inProofWindow, `consumed_at = now() - interval '5 minutes', expires_at = now() - interval '1 minute'`);
    // Rows of older phones, to make a run take several batches.
    await h.sql(`INSERT INTO auth.otp_codes (id, phone, purpose, decoy, code_hmac, max_attempts, created_at, expires_at)
       SELECT gen_random_uuid(), '+2376' || lpad(i::text, 8, '0'), 'LOGIN', true, '\\x00', 5, now() - interval '3 days', now() - interval '3 days'
         FROM generate_series(1, 2500) AS i`);
    const keep = [...(await rowsOf(recentExpired)), ...(await rowsOf(live)), ...(await rowsOf(inProofWindow))].map((r) => r.id);
    expect(keep).toHaveLength(3);

    expect(await h.app.get(AuthCleanup).purge()).toBe(2503);
    expect(await rowsOf(oldUnused)).toEqual([]);
    expect(await rowsOf(oldUsed)).toEqual([]);
    expect(await rowsOf(oldDecoy)).toEqual([]);
    expect((await h.sql<{ id: string }>(`SELECT id FROM auth.otp_codes ORDER BY created_at`)).map((r) => r.id).sort()).toEqual(
      [...keep].sort(),
    );
    expect(await h.app.get(AuthCleanup).purge()).toBe(0);

    // What is kept still works: the live code verifies, the used one is still replayed with its proof.
    expect((await verifyReset(live, await h.lastOtp(live))).statusCode).toBe(200);
    const replay = await verifyReset(inProofWindow, windowCode);
    expect(replay.statusCode).toBe(200);
    expect(replay.json<{ resetToken: string }>().resetToken).toBe(first.json<{ resetToken: string }>().resetToken);
    // A deleted code answers as an expired one.
    expect((await h.request('POST', '/auth/reset-pin/verify-otp', { body: { phone: oldUnused, otp: '123456' } })).json().code).toBe(
      'OTP_EXPIRED',
    );
  });
});

describe('auth: the clean-up timer', () => {
  it('runs when OTP_CLEANUP_INTERVAL_MS is set (the auth harness sets 0 otherwise)', async () => {
    const h = new AuthHarness();
    await h.start({ OTP_RETENTION_SEC: '3600', OTP_CLEANUP_INTERVAL_MS: '100' });
    try {
      const id = randomUUID();
      await h.sql(
        `INSERT INTO auth.otp_codes (id, phone, purpose, decoy, code_hmac, max_attempts, created_at, expires_at)
         VALUES ($1, '+237690001201', 'LOGIN', true, '\\x00', 5, now() - interval '2 days', now() - interval '2 days')`,
        [id],
      );
      let left = 1;
      for (let i = 0; i < 300 && left > 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        left = (await h.sql(`SELECT 1 FROM auth.otp_codes WHERE id = $1`, [id])).length;
      }
      expect(left).toBe(0);
    } finally {
      await h.stop();
    }
  });
});
