import { randomUUID } from 'node:crypto';
import { type Answer, MoneyPlatform, type TestUser } from './money-platform';

/**
 * A cash-out's OTP authorises that cash-out only. The attack it closes: an agent has the customer
 * read out the code of a small cash-out, and uses it to confirm a large one, either because that
 * one was moved to OTP_SENT by a send auth refused (429), or simply by verifying it with the other
 * intent's code. Every service is real; only /api/v1/intents is called.
 */
describe('cash-out OTP bound to its intent', () => {
  const p = new MoneyPlatform();
  let agent: TestUser;

  beforeAll(async () => {
    await p.start();
    agent = await p.register('AGENT');
  });
  afterAll(() => p.stop());

  async function customer(): Promise<TestUser> {
    const user = await p.register('CUSTOMER');
    await p.fund(user.accounts.XAF, 100_000);
    return user;
  }

  async function cashOut(client: TestUser, amount: number): Promise<string> {
    const created = await p.call('POST', '/api/v1/intents', {
      token: agent.token,
      body: { type: 'CASH_OUT', amount, clientPhone: client.phone, idempotencyKey: randomUUID() },
    });
    expect(created.status).toBe(201);
    expect(created.body.requiresOtp).toBe(true);
    return created.body.intentId as string;
  }

  const step = (id: string, name: string, body?: unknown): Promise<Answer> =>
    p.call('POST', `/api/v1/intents/${id}/${name}`, { token: agent.token, body });
  const status = async (id: string) => (await p.call('GET', `/api/v1/intents/${id}`, { token: agent.token })).body.status as string;

  async function lastSms(phone: string): Promise<string> {
    const res = await fetch(`${p.auth.url}/auth/dev/sms?phone=${encodeURIComponent(phone)}`);
    return ((await res.json()) as { messages: Array<{ text: string }> }).messages[0]?.text ?? '';
  }

  it("a code read out for one cash-out does not verify another one's OTP step", async () => {
    const bob = await customer();
    const small = await cashOut(bob, 5_000);
    const large = await cashOut(bob, 40_000);
    expect((await step(large, 'send-otp')).status).toBe(200);
    const largeCode = await p.lastOtp(bob.phone);
    // The code the customer reads out last is the small one's, and says so.
    expect((await step(small, 'send-otp')).status).toBe(200);
    const smallCode = await p.lastOtp(bob.phone);
    const sms = await lastSms(bob.phone);
    expect(sms).toContain(`withdraw 5 000 XAF in cash with agent ${agent.agentCode}`);
    expect(sms).not.toMatch(/never share/i);

    const refused = await step(large, 'verify-otp', { otpCode: smallCode });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('OTP_INVALID');
    expect(await status(large)).toBe('OTP_SENT');
    // Nor does the large one's own code, replaced by the newer code of the other intent.
    if (largeCode !== smallCode) expect((await step(large, 'verify-otp', { otpCode: largeCode })).body.code).toBe('OTP_INVALID');
    expect(await status(large)).toBe('OTP_SENT');

    // The small one still goes through with its code.
    expect((await step(small, 'verify-otp', { otpCode: smallCode })).body).toEqual({ intentId: small, status: 'OTP_VERIFIED' });
  });

  it('a send auth refuses (429) leaves the intent CREATED, and the live code of another intent cannot verify it', async () => {
    const carol = await customer();
    const small = await cashOut(carol, 5_000);
    // Sends until auth refuses one for this phone (its per-phone limits).
    let smallCode = '';
    for (let i = 0; i < 10; i++) {
      const sent = await step(small, 'send-otp');
      if (sent.status !== 200) break;
      smallCode = await p.lastOtp(carol.phone);
    }
    expect(smallCode).toMatch(/^\d{6}$/);
    const large = await cashOut(carol, 40_000);
    const throttled = await step(large, 'send-otp');
    expect(throttled.status).toBe(429);
    expect(['OTP_THROTTLED', 'RATE_LIMITED']).toContain(throttled.body.code);
    expect(await status(large)).toBe('CREATED');

    const verify = await step(large, 'verify-otp', { otpCode: smallCode });
    expect(verify.status).toBe(400);
    expect(verify.body.code).toBe('INVALID_INTENT_TRANSITION');
    expect(await status(large)).toBe('CREATED');
    // The code is still the small cash-out's.
    expect((await step(small, 'verify-otp', { otpCode: smallCode })).body).toEqual({ intentId: small, status: 'OTP_VERIFIED' });
  });
});
