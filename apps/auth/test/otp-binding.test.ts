import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger } from '@mm/platform';
import { AuthHarness, type InjectResult } from './support/auth-harness';

const PIN = '2580';

/** A code other than `code`, the same for every phone of a comparison. */
const wrongFor = (code: string) => (code === '000000' ? '111111' : '000000');

/** Review of one-time codes: intent binding, same answers on verify, a code found at its last try. */
describe('auth: INTENT codes are bound to their intent', () => {
  const h = new AuthHarness();
  beforeAll(() => h.start());
  afterAll(() => h.stop());

  const intentFacts = (intentId: string, amount = 5000) => ({
    intentId,
    operation: 'CASH_OUT',
    amount,
    currency: 'XAF',
    agentCode: 'AG04817263',
  });
  const sendIntent = (phone: string, intent: unknown, serviceKey = true) =>
    h.request('POST', '/auth/send-otp', { serviceKey, body: { phone, purpose: 'INTENT', intent } });
  const verifyIntent = (phone: string, otp: string, intentId: string | undefined, serviceKey = true) =>
    h.request('POST', '/auth/verify-otp', { serviceKey, body: { phone, purpose: 'INTENT', otp, ...(intentId ? { intentId } : {}) } });

  it('a code sent for intent A is a wrong code for intent B, and still verifies for A', async () => {
    const phone = '+237690000901';
    await h.createUser(phone, PIN);
    const [a, b] = [randomUUID(), randomUUID()];
    expect((await sendIntent(phone, intentFacts(a))).statusCode).toBe(202);
    const code = await h.lastOtp(phone);

    const forB = await verifyIntent(phone, code, b);
    expect(forB.statusCode).toBe(400);
    expect(forB.json().code).toBe('OTP_INVALID');
    expect(forB.body).not.toContain('consentProof');
    // Counted like any wrong code on the live code, which stays A's.
    expect(await h.sql(`SELECT subject_id, attempts, consumed_at FROM auth.otp_codes WHERE phone = $1`, [phone])).toEqual([
      { subject_id: a, attempts: 1, consumed_at: null },
    ]);
    // An upper-case spelling of A's id is still A.
    const forA = await verifyIntent(phone, code, a.toUpperCase());
    expect(forA.statusCode).toBe(200);
    expect(forA.json()).toMatchObject({ verified: true, purpose: 'INTENT', consentProof: expect.any(String) });
  });

  it('the SMS of an intent code says what it authorises, code first, without "never share"', async () => {
    const phone = '+237690000902';
    await h.createUser(phone, PIN);
    await sendIntent(phone, intentFacts(randomUUID(), 500_000));
    const sms = await h.request('GET', `/auth/dev/sms?phone=${encodeURIComponent(phone)}`);
    const text = sms.json<{ messages: Array<{ text: string }> }>().messages[0].text;
    expect(text).toMatch(/^\d{6} /);
    expect(text).toContain('withdraw 500 000 XAF in cash with agent AG04817263');
    expect(text).not.toMatch(/never share/i);
    expect(text.length).toBeLessThanOrEqual(160);
    // The code found by the usual pattern is the code, not a part of the amount.
    expect(await h.lastOtp(phone)).toBe(text.slice(0, 6));
  });

  it('only the orchestrator sends or checks INTENT codes, always with the intent', async () => {
    const phone = '+237690000903';
    await h.createUser(phone, PIN);
    const intentId = randomUUID();
    const publicSend = await sendIntent(phone, intentFacts(intentId), false);
    expect(publicSend.statusCode).toBe(403);
    expect(publicSend.json().code).toBe('OTP_PURPOSE_NOT_ALLOWED');
    await expect(h.lastOtp(phone)).rejects.toThrow('no OTP');
    const strangerKey = await h.request('POST', '/auth/send-otp', {
      headers: { 'x-service-key': 'not-a-key' },
      body: { phone, purpose: 'INTENT', intent: intentFacts(intentId) },
    });
    expect(strangerKey.json().code).toBe('OTP_PURPOSE_NOT_ALLOWED');

    const bare = await h.request('POST', '/auth/send-otp', { serviceKey: true, body: { phone, purpose: 'INTENT' } });
    expect(bare.statusCode).toBe(400);
    expect(bare.json().errors?.[0]).toMatchObject({ field: 'intent', code: 'REQUIRED' });
    const login = await h.request('POST', '/auth/send-otp', { body: { phone, purpose: 'LOGIN', intent: intentFacts(intentId) } });
    expect(login.statusCode).toBe(400);
    expect(login.json().errors?.[0]).toMatchObject({ field: 'intent' });
    const badAmount = await sendIntent(phone, { ...intentFacts(intentId), amount: 0 });
    expect(badAmount.json().errors?.[0]).toMatchObject({ field: 'intent.amount' });
    for (const notAnObject of [[], 'x', 5]) {
      const shapeless = await sendIntent(phone, notAnObject);
      expect(shapeless.statusCode).toBe(400);
      expect(shapeless.json().code).toBe('VALIDATION_ERROR');
      expect(shapeless.json().errors?.[0]).toMatchObject({ field: 'intent' });
    }

    expect((await sendIntent(phone, intentFacts(intentId))).statusCode).toBe(202);
    const code = await h.lastOtp(phone);
    expect((await verifyIntent(phone, code, intentId, false)).json().code).toBe('OTP_PURPOSE_NOT_ALLOWED');
    const noIntent = await verifyIntent(phone, code, undefined);
    expect(noIntent.statusCode).toBe(400);
    expect(noIntent.json().errors?.[0]).toMatchObject({ field: 'intentId', code: 'REQUIRED' });
    // Neither refusal touched the code.
    expect((await verifyIntent(phone, code, intentId)).statusCode).toBe(200);
  });

  it('the table refuses an INTENT code without a subject and a decoy that is consumed', async () => {
    const insert = (purpose: string, subject: string | null, decoy: boolean, consumed: boolean) =>
      h.sql(
        `INSERT INTO auth.otp_codes (id, phone, purpose, subject_id, decoy, code_hmac, max_attempts, expires_at, consumed_at)
         VALUES ($1, '+237690000999', $2, $3, $4, '\\x00', 5, now() + interval '1 minute', CASE WHEN $5 THEN now() END)`,
        [randomUUID(), purpose, subject, decoy, consumed],
      );
    await expect(insert('INTENT', null, false, false)).rejects.toThrow(/otp_codes_subject_check/);
    await expect(insert('LOGIN', randomUUID(), false, false)).rejects.toThrow(/otp_codes_subject_check/);
    await expect(insert('LOGIN', null, true, true)).rejects.toThrow(/otp_codes_decoy_unused_check/);
  });
});

describe('auth: verifying a code does not tell whether the phone has an account', () => {
  const h = new AuthHarness();
  beforeAll(() => h.start());
  afterAll(() => h.stop());

  const visible = (res: InjectResult) => {
    const { requestId: _requestId, ...body } = res.json<Record<string, unknown>>();
    return { status: res.statusCode, body };
  };

  /** Six wrong tries on each phone, after a send: the answers, as the caller sees them. */
  async function wrongTries(
    send: (phone: string) => Promise<InjectResult>,
    verify: (phone: string, otp: string) => Promise<InjectResult>,
    known: string,
    unknown: string,
  ) {
    expect((await send(known)).statusCode).toBe(202);
    expect((await send(unknown)).statusCode).toBe(202);
    const wrong = wrongFor(await h.lastOtp(known));
    await expect(h.lastOtp(unknown)).rejects.toThrow('no OTP');
    const answers: Record<'known' | 'unknown', Array<ReturnType<typeof visible>>> = { known: [], unknown: [] };
    for (let i = 0; i < 6; i++) {
      answers.known.push(visible(await verify(known, wrong)));
      answers.unknown.push(visible(await verify(unknown, wrong)));
    }
    return answers;
  }

  const codes = ['OTP_INVALID', 'OTP_INVALID', 'OTP_INVALID', 'OTP_INVALID', 'OTP_ATTEMPTS_EXHAUSTED', 'OTP_ATTEMPTS_EXHAUSTED'];

  it('reset-pin/request then reset-pin/verify-otp: the same answers, try after try', async () => {
    await h.createUser('+237690000911', PIN);
    const answers = await wrongTries(
      (phone) => h.request('POST', '/auth/reset-pin/request', { body: { phone } }),
      (phone, otp) => h.request('POST', '/auth/reset-pin/verify-otp', { body: { phone, otp } }),
      '+237690000911',
      '+237690000961',
    );
    expect(answers.unknown).toEqual(answers.known);
    expect(answers.known.map((a) => a.body.code)).toEqual(codes);
  });

  it("the orchestrator's check (internal verify-reset-pin-otp, behind /api/orchestrator/auth/reset-pin): the same answers", async () => {
    await h.createUser('+237690000912', PIN);
    const answers = await wrongTries(
      (phone) => h.request('POST', '/auth/reset-pin/request', { body: { phone } }),
      (phone, otp) => h.request('POST', '/auth/internal/verify-reset-pin-otp', { serviceKey: true, body: { phone, otp } }),
      '+237690000912',
      '+237690000962',
    );
    expect(answers.unknown).toEqual(answers.known);
    expect(answers.known.map((a) => a.body.code)).toEqual(codes);
  });

  it('send-otp LOGIN then verify-otp, also for an account that may not receive LOGIN codes (disabled)', async () => {
    const { userId } = await h.createUser('+237690000913', PIN);
    await h.createUser('+237690000914', PIN);
    const disabled = await h.request('PUT' as 'POST', `/auth/internal/users/${userId}/status`, {
      serviceKey: true,
      body: { status: 'DISABLED' },
    });
    expect(disabled.statusCode).toBe(200);
    const answers = await wrongTries(
      (phone) => h.request('POST', '/auth/send-otp', { body: { phone, purpose: 'LOGIN' } }),
      (phone, otp) => h.request('POST', '/auth/verify-otp', { body: { phone, purpose: 'LOGIN', otp } }),
      '+237690000914',
      '+237690000913',
    );
    expect(answers.unknown).toEqual(answers.known);
    expect(answers.known.map((a) => a.body.code)).toEqual(codes);
  });

  it('a stand-in code is stored and replaced like a real one, and the decoy flag alone keeps even the right code out', async () => {
    const phone = '+237690000963';
    await h.request('POST', '/auth/reset-pin/request', { body: { phone } });
    await h.request('POST', '/auth/reset-pin/request', { body: { phone } });
    expect(await h.otpStates(phone)).toEqual([
      { decoy: true, live: false },
      { decoy: true, live: true },
    ]);
    // A real code whose row is marked as a stand-in: the right code is refused as a wrong one.
    const account = '+237690000915';
    await h.createUser(account, PIN);
    await h.request('POST', '/auth/reset-pin/request', { body: { phone: account } });
    const code = await h.lastOtp(account);
    await h.sql(`UPDATE auth.otp_codes SET decoy = true WHERE phone = $1`, [account]);
    expect((await h.request('POST', '/auth/reset-pin/verify-otp', { body: { phone: account, otp: code } })).json().code).toBe(
      'OTP_INVALID',
    );
  });
});

describe('auth: a reset code found at its last try still resets the PIN through the orchestrator', () => {
  const h = new AuthHarness();
  beforeAll(() => h.start());
  afterAll(() => h.stop());

  it('4 wrong codes, the right one on reset-pin/verify-otp, then the internal verify (replay) and reset succeed', async () => {
    const phone = '+237690000921';
    await h.createUser(phone, PIN);
    await h.request('POST', '/auth/reset-pin/request', { body: { phone } });
    const code = await h.lastOtp(phone);
    for (let i = 0; i < 4; i++)
      expect((await h.request('POST', '/auth/reset-pin/verify-otp', { body: { phone, otp: wrongFor(code) } })).json().code).toBe(
        'OTP_INVALID',
      );
    const checked = await h.request('POST', '/auth/reset-pin/verify-otp', { body: { phone, otp: code } });
    expect(checked.statusCode).toBe(200);

    // What POST /api/orchestrator/auth/reset-pin does with the same code (pin.controller.ts promises it works).
    const replay = await h.request('POST', '/auth/internal/verify-reset-pin-otp', { serviceKey: true, body: { phone, otp: code } });
    expect(replay.statusCode).toBe(200);
    const reset = await h.request('POST', '/auth/internal/reset-pin', {
      serviceKey: true,
      body: { phone, resetToken: replay.json<{ resetToken: string }>().resetToken, newPin: '7391' },
    });
    expect(reset.statusCode).toBe(200);
    expect(reset.json()).toMatchObject({ reset: true });
    expect((await h.request('POST', '/auth/login', { body: { phone, pin: '7391' } })).statusCode).toBe(200);

    // The client never got that answer and retries the same reset: the orchestrator replays the
    // same code (the same resetToken) and redeems it again with the same PIN, which answers the same.
    // The right replays count on the proof's checks, not on the four wrong tries.
    const retry = await h.request('POST', '/auth/internal/verify-reset-pin-otp', { serviceKey: true, body: { phone, otp: code } });
    expect(retry.statusCode).toBe(200);
    expect(retry.json<{ resetToken: string }>().resetToken).toBe(replay.json<{ resetToken: string }>().resetToken);
    const again = await h.request('POST', '/auth/internal/reset-pin', {
      serviceKey: true,
      body: { phone, resetToken: retry.json<{ resetToken: string }>().resetToken, newPin: '7391' },
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ reset: true });
    expect(await h.sql(`SELECT attempts, proof_checks FROM auth.otp_codes WHERE phone = $1`, [phone])).toEqual([
      { attempts: 4, proof_checks: 4 },
    ]);
    // A wrong code now is the code's fifth wrong guess: from then on nothing is checked, even the right code.
    expect(
      (await h.request('POST', '/auth/internal/verify-reset-pin-otp', { serviceKey: true, body: { phone, otp: wrongFor(code) } })).json()
        .code,
    ).toBe('OTP_ATTEMPTS_EXHAUSTED');
    expect(
      (await h.request('POST', '/auth/internal/verify-reset-pin-otp', { serviceKey: true, body: { phone, otp: code } })).json().code,
    ).toBe('OTP_ATTEMPTS_EXHAUSTED');
  });
});

describe("auth: the orchestrator's INTENT requests are named in the log", () => {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const h = new AuthHarness();
  beforeAll(() => h.start({ LOG_LEVEL: 'info' }, createLogger({ service: 'auth', level: 'info', destination })));
  afterAll(() => h.stop());

  it("send-otp and verify-otp for purpose INTENT log the caller, like an internal route; a customer's send names none", async () => {
    const phone = '+237690000907';
    await h.createUser(phone, PIN);
    const intentId = randomUUID();
    const intent = { intentId, operation: 'CASH_OUT', amount: 5000, currency: 'XAF' };
    expect((await h.request('POST', '/auth/send-otp', { serviceKey: true, body: { phone, purpose: 'INTENT', intent } })).statusCode).toBe(
      202,
    );
    const otp = await h.lastOtp(phone);
    expect(
      (await h.request('POST', '/auth/verify-otp', { serviceKey: true, body: { phone, purpose: 'INTENT', otp, intentId } })).statusCode,
    ).toBe(200);
    expect((await h.request('POST', '/auth/send-otp', { body: { phone, purpose: 'LOGIN' } })).statusCode).toBe(202);

    const requests = lines.filter((l) => l.msg === 'request' && (l.url === '/auth/send-otp' || l.url === '/auth/verify-otp'));
    expect(requests.map((l) => [l.url, l.caller])).toEqual([
      ['/auth/send-otp', 'orchestrator'],
      ['/auth/verify-otp', 'orchestrator'],
      ['/auth/send-otp', undefined],
    ]);
  });
});
