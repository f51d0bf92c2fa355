import { authApp } from '../src/auth.app';
import { AuthSecrets } from '../src/crypto/auth-secrets';
import { type RunningApp, boot } from '../../../test/support/boot';
import { callerKey } from '../../../test/support/test-env';
import { AuthHarness } from './support/auth-harness';

const PHONE = '+237690000711';
const PIN = '2580';

/**
 * Two auth replicas on one database and one Redis namespace, neither given JWT_PRIVATE_KEY nor
 * OTP_HMAC_KEY (development, tests, `npm start` with several replicas): what one replica issues,
 * the other accepts. Keys generated per process made the second replica refuse the first one's
 * tokens and codes.
 */
describe('auth: replicas without configured keys share them', () => {
  const h = new AuthHarness();
  let other: RunningApp;

  beforeAll(async () => {
    await h.start({ JWT_PRIVATE_KEY: undefined, OTP_HMAC_KEY: undefined });
    await h.createUser(PHONE, PIN);
    other = await boot(authApp, h.env);
  });
  afterAll(async () => {
    await other?.close();
    await h.stop();
  });

  const atOther = async (url: string, body: unknown, serviceKey = false) => {
    const headers: Record<string, string> = serviceKey ? { 'x-service-key': callerKey('orchestrator') } : {};
    return other.app.inject({ method: 'POST', url, headers, payload: body as never });
  };

  it('use one signing key and one OTP key', () => {
    const [mine, theirs] = [h.app.get(AuthSecrets), other.app.get(AuthSecrets)];
    expect(theirs.signing.kid).toBe(mine.signing.kid);
    expect(theirs.phoneTag('throttle', PHONE)).toBe(mine.phoneTag('throttle', PHONE));
  });

  it('a token issued by one replica is active at the other', async () => {
    const { token } = await h.login(PHONE, PIN);
    const res = await atOther('/auth/internal/introspect', { token }, true);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ active: true });
  });

  it('a code sent by one replica verifies at the other', async () => {
    expect((await h.request('POST', '/auth/send-otp', { body: { phone: PHONE, purpose: 'LOGIN' } })).statusCode).toBe(202);
    const otp = await h.lastOtp(PHONE);
    const res = await atOther('/auth/verify-otp', { phone: PHONE, purpose: 'LOGIN', otp });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ verified: true });
  });
});
