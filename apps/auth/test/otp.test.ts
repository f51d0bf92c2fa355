import { AuthHarness } from './support/auth-harness';

const PHONE = '+237690000101';

describe('auth: OTP', () => {
  const h = new AuthHarness();
  beforeAll(async () => {
    // Generous caps, each throttle test uses its own phone or IP. The TTL is long enough for a send
    // and its verifications on a loaded machine (at 2 s they could outlive it); expiry is tested by
    // moving a code's end into the past.
    await h.start({ OTP_TTL_SEC: '30', OTP_MAX_PER_PHONE_PER_HOUR: '50', OTP_MAX_PER_IP_PER_HOUR: '1000' });
    for (const suffix of ['101', '102', '103', '104', '105', '106', '107']) await h.createUser(`+237690000${suffix}`, '2580');
  });
  afterAll(() => h.stop());

  const send = (phone: string, purpose = 'LOGIN', ip?: string) =>
    h.request('POST', '/auth/send-otp', { body: { phone, purpose }, headers: ip ? { 'x-forwarded-for': ip } : {} });
  const verify = (phone: string, otp: string, purpose = 'LOGIN') =>
    h.request('POST', '/auth/verify-otp', { body: { phone, purpose, otp } });

  it('sends a 6-digit code that verifies once for its phone and purpose, and stores only an HMAC', async () => {
    const res = await send(PHONE);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ sent: true, expiresInSec: 30 });
    const code = await h.lastOtp(PHONE);
    expect(code).toMatch(/^\d{6}$/);
    expect((await verify(PHONE, code, 'PIN_RESET')).json().code).toBe('OTP_EXPIRED'); // other purpose: no live code
    expect((await verify('+237690000102', code)).json().code).toBe('OTP_EXPIRED'); // other phone
    const ok = await verify(PHONE, code);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ verified: true, purpose: 'LOGIN', proof: expect.stringMatching(/^otp1\./) });
    expect((await verify(PHONE, code)).json().code).toBe('OTP_EXPIRED');

    const { Client } = await import('pg');
    const pg = new Client({ connectionString: h.adminUrl });
    await pg.connect();
    const rows = (await pg.query(`SELECT * FROM auth.otp_codes`)).rows;
    await pg.end();
    expect(JSON.stringify(rows)).not.toContain(code);
  });

  it('consumes a code exactly once under 10 concurrent verifications', async () => {
    const phone = '+237690000102';
    await send(phone);
    const code = await h.lastOtp(phone);
    const results = await Promise.all(Array.from({ length: 10 }, () => verify(phone, code)));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(results.filter((r) => r.statusCode !== 200).map((r) => r.json().code)).toEqual(Array(9).fill('OTP_EXPIRED'));
  });

  it('expires after its validity', async () => {
    const phone = '+237690000103';
    await send(phone);
    const code = await h.lastOtp(phone);
    // Its validity over: the end stored with the code passed (verify compares it with the clock).
    await h.sql(`UPDATE auth.otp_codes SET expires_at = now() - interval '1 second' WHERE phone = $1`, [phone]);
    const res = await verify(phone, code);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('OTP_EXPIRED');
  });

  it('is discarded after 5 wrong attempts, even for the right code afterwards', async () => {
    const phone = '+237690000104';
    await send(phone);
    const code = await h.lastOtp(phone);
    const wrong = code === '000000' ? '111111' : '000000';
    const codes = [];
    for (let i = 0; i < 5; i++) codes.push((await verify(phone, wrong)).json().code);
    expect(codes).toEqual(['OTP_INVALID', 'OTP_INVALID', 'OTP_INVALID', 'OTP_INVALID', 'OTP_ATTEMPTS_EXHAUSTED']);
    expect((await verify(phone, code)).json().code).toBe('OTP_ATTEMPTS_EXHAUSTED');
    // A new code works again.
    await send(phone);
    expect((await verify(phone, await h.lastOtp(phone))).statusCode).toBe(200);
  });

  it('a new code replaces the previous one', async () => {
    const phone = '+237690000105';
    await send(phone);
    const first = await h.lastOtp(phone);
    await send(phone);
    const second = await h.lastOtp(phone);
    if (first !== second) expect((await verify(phone, first)).json().code).toBe('OTP_INVALID');
    expect((await verify(phone, second)).statusCode).toBe(200);
  });

  it('answers the same for a phone without an account, and sends nothing', async () => {
    const res = await send('+237691111111');
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual((await send('+237690000106')).json());
    await expect(h.lastOtp('+237691111111')).rejects.toThrow('no OTP');
  });

  it('refuses a bad purpose or code format with field codes', async () => {
    expect((await send(PHONE, 'SOMETHING')).json().errors?.[0]).toMatchObject({ field: 'purpose', code: 'INVALID_OTP_PURPOSE' });
    expect((await verify(PHONE, '12345')).json().errors?.[0]).toMatchObject({ field: 'otp', code: 'INVALID_OTP_FORMAT' });
  });
});

describe('auth: OTP resend cooldown', () => {
  const h = new AuthHarness();
  // 5 s: the second send must land inside the cooldown even on a loaded machine (each send takes
  // at least OTP_SEND_MIN_MS).
  beforeAll(() => h.start({ OTP_RESEND_COOLDOWN_SEC: '5' }));
  afterAll(() => h.stop());

  it('allows one send per phone per cooldown, with Retry-After', async () => {
    const send = () => h.request('POST', '/auth/send-otp', { body: { phone: '+237690000201', purpose: 'LOGIN' } });
    expect((await send()).statusCode).toBe(202);
    const again = await send();
    expect(again.statusCode).toBe(429);
    expect(again.json().code).toBe('OTP_THROTTLED');
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 5_100));
    expect((await send()).statusCode).toBe(202);
  });
});

describe('auth: OTP hourly caps', () => {
  const h = new AuthHarness();
  beforeAll(() =>
    h.start({ OTP_RESEND_COOLDOWN_SEC: '0', OTP_MAX_PER_PHONE_PER_HOUR: '3', OTP_MAX_PER_IP_PER_HOUR: '4', TRUST_FORWARDED_FOR: 'true' }),
  );
  afterAll(() => h.stop());

  const send = (phone: string, ip: string) =>
    h.request('POST', '/auth/send-otp', { body: { phone, purpose: 'LOGIN' }, headers: { 'x-forwarded-for': `6.6.6.6, ${ip}` } });

  it('caps sends per phone per hour, with Retry-After', async () => {
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await send('+237690000202', `10.0.1.${i}`));
    expect(results.map((r) => r.statusCode)).toEqual([202, 202, 202, 429]);
    expect(results[3].json().code).toBe('OTP_THROTTLED');
    expect(Number(results[3].headers['retry-after'])).toBeGreaterThan(3500);
  });

  it('caps sends per client IP per hour (the last X-Forwarded-For entry, not the client-controlled first)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await send(`+23769000030${i}`, '10.9.9.9')).statusCode);
    expect(statuses).toEqual([202, 202, 202, 202, 429]);
    expect((await send('+237690000399', '10.9.9.8')).statusCode).toBe(202);
  });
});

/**
 * Every check of a code, or of the proof it yielded, counts an attempt against the code's own limit
 * (the five tries per code of docs/registration.md "PIN reset"), also once the code has been used.
 */
describe('auth: OTP proof window counted', () => {
  const h = new AuthHarness();
  beforeAll(() => h.start());
  afterAll(() => h.stop());

  const verifyReset = (phone: string, otp: string) =>
    h.request('POST', '/auth/internal/verify-reset-pin-otp', { serviceKey: true, body: { phone, otp } });
  const reset = (phone: string, resetToken: string, newPin: string) =>
    h.request('POST', '/auth/internal/reset-pin', { serviceKey: true, body: { phone, resetToken, newPin } });
  /** A consumed PIN_RESET code (its proof window open) and its proof. */
  const consumedCode = async (phone: string) => {
    await h.createUser(phone, '2580');
    await h.request('POST', '/auth/reset-pin/request', { body: { phone } });
    const code = await h.lastOtp(phone);
    const first = await verifyReset(phone, code);
    expect(first.statusCode).toBe(200);
    return { code, wrong: code === '000000' ? '111111' : '000000', resetToken: first.json<{ resetToken: string }>().resetToken };
  };

  it('wrong codes during the proof window lock the code out exactly like wrong codes before it was used', async () => {
    const { code, wrong } = await consumedCode('+237690000801');
    const codes = [];
    for (let i = 0; i < 5; i++) codes.push((await verifyReset('+237690000801', wrong)).json().code);
    // Four refusals, then the fifth wrong try exhausts the code, as on the first check.
    expect(codes).toEqual(['OTP_EXPIRED', 'OTP_EXPIRED', 'OTP_EXPIRED', 'OTP_EXPIRED', 'OTP_ATTEMPTS_EXHAUSTED']);
    const right = await verifyReset('+237690000801', code);
    expect(right.statusCode).toBe(400);
    expect(right.json().code).toBe('OTP_ATTEMPTS_EXHAUSTED');
  });

  it('below the limit, the right code still answers the same proof (the orchestrator retry keeps working)', async () => {
    const { code, wrong, resetToken } = await consumedCode('+237690000802');
    // Four wrong tries, then the right code: still accepted, as on the first check.
    for (let i = 0; i < 4; i++) expect((await verifyReset('+237690000802', wrong)).json().code).toBe('OTP_EXPIRED');
    const replay = await verifyReset('+237690000802', code);
    expect(replay.statusCode).toBe(200);
    expect(replay.json<{ resetToken: string }>().resetToken).toBe(resetToken);
    // A right replay is no wrong guess: it counts on the proof's checks, and the next one still works.
    expect((await verifyReset('+237690000802', code)).json<{ resetToken: string }>().resetToken).toBe(resetToken);
    // The fifth wrong code since the code was sent exhausts it: then even the right code is refused.
    expect((await verifyReset('+237690000802', wrong)).json().code).toBe('OTP_ATTEMPTS_EXHAUSTED');
    expect((await verifyReset('+237690000802', code)).json().code).toBe('OTP_ATTEMPTS_EXHAUSTED');
  });

  it('right replays and redemptions share the proof checks (OTP_MAX_ATTEMPTS): then both are refused', async () => {
    const phone = '+237690000805';
    const { code, resetToken } = await consumedCode(phone);
    // The consuming check above counted nothing; four right replays and one reset use up the five checks.
    for (let i = 0; i < 4; i++) expect((await verifyReset(phone, code)).json<{ resetToken: string }>().resetToken).toBe(resetToken);
    expect((await reset(phone, resetToken, '7391')).statusCode).toBe(200);
    expect((await verifyReset(phone, code)).json().code).toBe('OTP_ATTEMPTS_EXHAUSTED');
    expect((await reset(phone, resetToken, '7391')).json().code).toBe('RESET_TOKEN_INVALID');
  });

  it('forged reset tokens count against the code: after the limit even the genuine token is refused', async () => {
    const phone = '+237690000803';
    const { resetToken } = await consumedCode(phone);
    // The second-to-last character: the last one of a 32-byte base64url value carries two unused
    // bits, so A↔B there can decode to the same bytes (the genuine token, about 1 run in 16).
    const forged = resetToken.replace(/.(?=.$)/, (c) => (c === 'A' ? 'B' : 'A'));
    for (let i = 0; i < 5; i++) expect((await reset(phone, forged, '7391')).json().code).toBe('RESET_TOKEN_INVALID');
    const genuine = await reset(phone, resetToken, '7391');
    expect(genuine.statusCode).toBe(400);
    expect(genuine.json().code).toBe('RESET_TOKEN_INVALID');
    expect((await h.request('POST', '/auth/login', { body: { phone, pin: '2580' } })).statusCode).toBe(200);
  });

  it('a used reset token is no PIN oracle: replays with other PINs count, and run out', async () => {
    const phone = '+237690000804';
    const { resetToken } = await consumedCode(phone);
    expect((await reset(phone, resetToken, '7391')).statusCode).toBe(200);
    // The reset counted one check of the proof; four guesses at the new PIN use up the code's five.
    for (const guess of ['1357', '2468', '9753', '8642'])
      expect((await reset(phone, resetToken, guess)).json().code).toBe('RESET_TOKEN_INVALID');
    // The right new PIN no longer confirms anything either.
    expect((await reset(phone, resetToken, '7391')).json().code).toBe('RESET_TOKEN_INVALID');
    expect((await h.request('POST', '/auth/login', { body: { phone, pin: '7391' } })).statusCode).toBe(200);
  });
});
