import { PlatformHarness } from '../../apps/orchestrator/test/platform-harness';

const PIN = '2580';
const NEW_PIN = '7391';
const person = { firstName: 'Awa', lastName: 'Nkoulou', countryCode: 'CM' };

describe('PIN reset workflow through the gateway (OTP from the dev SMS sender)', () => {
  const h = new PlatformHarness();
  beforeAll(() => h.start({ orchestrator: { PIN_RESET_MAX_PER_PHONE_PER_HOUR: '4' } }));
  afterAll(() => h.stop());

  const registered = async (phone: string) => {
    const res = await h.call('POST', '/api/orchestrator/auth/register', { body: { phone, pin: PIN, ...person } });
    expect(res.status).toBe(201);
  };
  const requestCode = async (phone: string) => {
    expect((await h.call('POST', '/api/auth/reset-pin/request', { body: { phone } })).status).toBe(202);
    return h.lastOtp(phone);
  };

  it('resets the PIN: old PIN refused, new PIN works, old sessions dead (auth and orchestrator alike)', async () => {
    const phone = '+237690600001';
    await registered(phone);
    const old = await h.login(phone, PIN);
    expect((await h.call('GET', '/api/orchestrator/me', { token: old })).status).toBe(200);

    const res = await h.call('POST', '/api/orchestrator/auth/reset-pin', {
      body: { phone, otp: await requestCode(phone), newPin: NEW_PIN },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ reset: true });

    expect((await h.call('POST', '/api/auth/login', { body: { phone, pin: PIN } })).body.code).toBe('INVALID_CREDENTIALS');
    const fresh = await h.login(phone, NEW_PIN);
    expect((await h.call('GET', '/api/auth/me', { token: old })).body.code).toBe('TOKEN_REVOKED');
    expect((await h.call('GET', '/api/orchestrator/me', { token: old })).body.code).toBe('TOKEN_REVOKED');
    expect((await h.call('GET', '/api/orchestrator/me', { token: fresh })).status).toBe(200);
  });

  it('the deprecated /api/auth/reset-pin/confirm runs the same workflow and says so', async () => {
    const phone = '+237690600002';
    await registered(phone);
    const res = await h.call('POST', '/api/auth/reset-pin/confirm', { body: { phone, otp: await requestCode(phone), newPin: NEW_PIN } });
    expect(res.status).toBe(200);
    expect(res.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(res.headers.get('link')).toBe('</api/orchestrator/auth/reset-pin>; rel="successor-version"');
    await h.login(phone, NEW_PIN);
  });

  it('a wrong code is OTP_INVALID; a weak new PIN is refused and the same code then still works', async () => {
    const phone = '+237690600003';
    await registered(phone);
    const otp = await requestCode(phone);
    const wrong = otp === '000000' ? '000001' : '000000';
    expect((await h.call('POST', '/api/orchestrator/auth/reset-pin', { body: { phone, otp: wrong, newPin: NEW_PIN } })).body.code).toBe(
      'OTP_INVALID',
    );
    expect((await h.call('POST', '/api/orchestrator/auth/reset-pin', { body: { phone, otp, newPin: '1111' } })).body.code).toBe(
      'PIN_POLICY_VIOLATION',
    );
    expect((await h.call('POST', '/api/orchestrator/auth/reset-pin', { body: { phone, otp, newPin: NEW_PIN } })).status).toBe(200);
    await h.login(phone, NEW_PIN);
  });

  it('an unknown phone answers exactly like a known phone without a live code (no enumeration)', async () => {
    await registered('+237690600004');
    const unknown = await h.call('POST', '/api/orchestrator/auth/reset-pin', {
      body: { phone: '+237690600099', otp: '123456', newPin: NEW_PIN },
    });
    const known = await h.call('POST', '/api/orchestrator/auth/reset-pin', {
      body: { phone: '+237690600004', otp: '123456', newPin: NEW_PIN },
    });
    expect([unknown.status, unknown.body.code, unknown.body.message]).toEqual([known.status, known.body.code, known.body.message]);
    expect(unknown.body.code).toBe('OTP_EXPIRED');
  });

  it('attempts per phone are throttled: 429 RATE_LIMITED with Retry-After', async () => {
    const phone = '+237690600005';
    const attempt = () => h.call('POST', '/api/orchestrator/auth/reset-pin', { body: { phone, otp: '123456', newPin: NEW_PIN } });
    for (let i = 0; i < 4; i++) expect((await attempt()).body.code).toBe('OTP_EXPIRED');
    const limited = await attempt();
    expect([limited.status, limited.body.code]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('bad input has stable codes', async () => {
    const res = await h.call('POST', '/api/orchestrator/auth/reset-pin', { body: { phone: '0690', otp: '12', newPin: 'abcd' } });
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors.map((e: { code: string }) => e.code).sort()).toEqual([
      'INVALID_OTP_FORMAT',
      'INVALID_PHONE_FORMAT',
      'INVALID_PIN_FORMAT',
    ]);
  });
});
