import { Writable } from 'node:stream';
import { createLogger } from '@mm/platform';
import { AuthHarness } from './support/auth-harness';

const PHONE = '+237690000801';
const PIN = '2580';
const NEW_PIN = '7391';

describe('auth: no secret in any log line', () => {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const h = new AuthHarness();

  beforeAll(() =>
    h.start(
      {
        LOG_LEVEL: 'debug',
        BOOTSTRAP_ADMIN_PHONE: '+237690000802',
        BOOTSTRAP_ADMIN_PIN: '4826',
        PIN_LOCK_THRESHOLD: '3',
        REFRESH_GRACE_SEC: '0',
      },
      createLogger({ service: 'auth', level: 'debug', destination }),
    ),
  );
  afterAll(() => h.stop());

  it('logs requests and events, but never a PIN, OTP, token, proof or full phone number', async () => {
    const secrets: string[] = [PHONE, '+237690000802', '4826', PIN, NEW_PIN];
    await h.createUser(PHONE, PIN);
    const session = await h.login(PHONE, PIN);
    secrets.push(session.token, session.refreshToken);
    const refreshed = (await h.request('POST', '/auth/refresh', { body: { refreshToken: session.refreshToken } })).json<{
      token: string;
      refreshToken: string;
    }>();
    secrets.push(refreshed.token, refreshed.refreshToken);
    await h.request('POST', '/auth/refresh', { body: { refreshToken: session.refreshToken } }); // reuse → warning line
    for (let i = 0; i < 3; i++) await h.request('POST', '/auth/login', { body: { phone: PHONE, pin: '1111' } }); // lock
    await h.request('POST', '/auth/login', { body: { phone: '+237699999998', pin: '9999' } });

    await h.request('POST', '/auth/send-otp', { body: { phone: PHONE, purpose: 'LOGIN' } });
    const loginOtp = await h.lastOtp(PHONE);
    const proof = (await h.request('POST', '/auth/verify-otp', { body: { phone: PHONE, purpose: 'LOGIN', otp: loginOtp } })).json<{
      proof: string;
    }>().proof;
    await h.request('POST', '/auth/reset-pin/request', { body: { phone: PHONE } });
    const resetOtp = await h.lastOtp(PHONE);
    const verified = await h.request('POST', '/auth/reset-pin/verify-otp', { body: { phone: PHONE, otp: resetOtp } });
    const resetToken = verified.json<{ resetToken: string }>().resetToken;
    secrets.push(loginOtp, resetOtp, proof, resetToken);
    await h.request('POST', '/auth/internal/reset-pin', { serviceKey: true, body: { phone: PHONE, resetToken, newPin: NEW_PIN } });
    const again = await h.login(PHONE, NEW_PIN);
    secrets.push(again.token, again.refreshToken);
    await h.request('POST', '/auth/check-pin', { token: again.token, body: { pin: NEW_PIN } });
    await h.request('POST', '/auth/logout', { token: again.token });
    await h.request('GET', '/auth/me', { token: again.token });

    const events = lines.map((l) => JSON.parse(l) as { msg?: string });
    // The capture works: request lines and domain events are there.
    expect(events.filter((e) => e.msg === 'request').length).toBeGreaterThan(15);
    for (const msg of [
      'OTP sent',
      'PIN reset',
      'refresh token reuse detected: session revoked',
      'bootstrap administrator created; change its PIN',
    ]) {
      expect(events.some((e) => e.msg === msg)).toBe(true);
    }
    const all = lines.join('\n');
    // Long secrets (tokens, proofs, phone numbers) must appear nowhere. A PIN or a code is a few
    // digits, which a timestamp, a duration or an id can contain by chance: those must not appear
    // as a word of their own (nor, below, as a whole JSON value). A word here runs on across '-',
    // ':' and '.' between letters or digits, so a group of a UUID ("…-4826-…") or of a time is not
    // one, while "PIN 4826." still is.
    for (const secret of secrets.filter((s) => s.length > 8)) expect(all.includes(secret)).toBe(false);
    for (const short of secrets.filter((s) => s.length <= 8))
      expect(all).not.toMatch(new RegExp(`(?<![0-9A-Za-z]|[0-9A-Za-z][-:.])${short}(?![0-9A-Za-z]|[-:.][0-9A-Za-z])`));
    // PINs and codes are short: also make sure no JSON value is exactly one of them.
    const values = lines.flatMap((l) => JSON.stringify(JSON.parse(l)).match(/"[^"]*"/g) ?? []).map((v) => v.slice(1, -1));
    for (const short of [PIN, NEW_PIN, '4826', loginOtp, resetOtp]) expect(values).not.toContain(short);
  });
});
