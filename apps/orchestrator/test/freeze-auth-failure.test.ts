import { type CuttingProxy, cuttingProxy, type ProxiedRequest } from '../../../test/support/cutting-proxy';
import { PlatformHarness } from './platform-harness';

const PIN = '2580';
const person = { firstName: 'Awa', lastName: 'Nkoulou', countryCode: 'CM' };

/**
 * The orchestrator reaches the real auth through a proxy that passes everything (gateway,
 * introspection, JWKS, registration) except, while `when` is not `off`, the internal status change
 * `PUT /auth/internal/users/:id/status`, whose connection it cuts.
 */
const statusChange = ({ method, url }: ProxiedRequest) => method === 'PUT' && /^\/auth\/internal\/users\/[^/]+\/status$/.test(url);

/** Polls `read` until it answers `expected` (10 s at most), then asserts it. */
async function eventually<T>(read: () => Promise<T>, expected: T): Promise<void> {
  const until = Date.now() + 10_000;
  let value = await read();
  while (value !== expected && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  expect(value).toBe(expected);
}

describe('freeze / unfreeze when the call to auth fails', () => {
  const h = new PlatformHarness();
  let proxy: CuttingProxy;
  let admin: string;

  beforeAll(async () => {
    proxy = await cuttingProxy(() => h.auth.url, { cut: statusChange, when: 'off' });
    // The old unfreeze route on one pair of eyes (its four-eyes default: backoffice-people.test.ts);
    // the engine's sweep runs often and takes up a stuck execution after a second.
    await h.start({
      orchestrator: {
        AUTH_URL: proxy.url,
        APPROVALS_ONE_PERSON_ACTIONS: 'CUSTOMER_UNFREEZE',
        APPROVAL_SWEEP_INTERVAL_MS: '200',
        APPROVAL_EXECUTING_GRACE_SECONDS: '1',
      },
    });
    admin = await h.adminToken();
  });
  // A failed case leaves no cutting behind for the next one.
  afterEach(() => {
    proxy.when = 'off';
  });
  afterAll(async () => {
    await h.stop();
    await proxy?.close();
  });

  const freeze = (customerId: string, action: 'freeze' | 'unfreeze') =>
    h.call('POST', `/api/orchestrator/admin/customers/${customerId}/${action}`, { token: admin, body: { reason: `test ${action}` } });
  const shownStatus = async (customerId: string) =>
    (await h.call('GET', `/api/orchestrator/admin/customers/${customerId}`, { token: admin })).body.status as string;
  const authStatus = async (userId: string) => (await h.sql.query(`SELECT status FROM auth.users WHERE id = $1`, [userId])).rows[0].status;
  const events = (customerId: string) =>
    h.count(`SELECT count(*) AS n FROM orchestrator.customer_status_events WHERE customer_id = $1`, [customerId]);
  const signIn = async (phone: string) => {
    const res = await h.call('POST', '/api/auth/login', { body: { phone, pin: PIN } });
    return [res.status, res.body.code];
  };

  it('a freeze auth did not take changes nothing; the same request again completes it', async () => {
    const phone = '+237690810001';
    const registered = await h.call('POST', '/api/orchestrator/auth/register', { body: { phone, pin: PIN, ...person } });
    expect(registered.status).toBe(201);
    const { customerId, userId } = registered.body as { customerId: string; userId: string };
    const token = await h.login(phone, PIN);

    // auth unreachable: 502, and no half state: not shown as frozen, and sign-in still works as shown.
    proxy.when = 'before';
    const failed = await freeze(customerId, 'freeze');
    expect([failed.status, failed.body.code]).toEqual([502, 'UPSTREAM_UNAVAILABLE']);
    expect(await shownStatus(customerId)).toBe('active');
    expect(await events(customerId)).toBe(0);
    expect(await authStatus(userId)).toBe('ACTIVE');
    expect((await h.call('GET', '/api/auth/me', { token })).status).toBe(200);

    // auth did it but its answer was lost: still 502 and still shown active, but the stricter side holds.
    proxy.when = 'after';
    const lost = await freeze(customerId, 'freeze');
    expect([lost.status, lost.body.code]).toEqual([502, 'UPSTREAM_UNAVAILABLE']);
    expect(await shownStatus(customerId)).toBe('active');
    expect(await authStatus(userId)).toBe('DISABLED');
    expect((await h.call('GET', '/api/auth/me', { token })).status).toBe(401);

    // The same request again completes it, once (idempotent: one audit event, a further call changes nothing).
    proxy.when = 'off';
    for (let i = 0; i < 2; i++) {
      const done = await freeze(customerId, 'freeze');
      expect([done.status, done.body.status]).toEqual([200, 'frozen']);
    }
    expect(await events(customerId)).toBe(1);
    expect(await signIn(phone)).toEqual([403, 'ACCOUNT_DISABLED']);
  });

  it('an unfreeze auth did not take changes nothing and stays with the engine, which carries it out once auth answers', async () => {
    const phone = '+237690810002';
    const registered = await h.call('POST', '/api/orchestrator/auth/register', { body: { phone, pin: PIN, ...person } });
    expect(registered.status).toBe(201);
    const { customerId, userId } = registered.body as { customerId: string; userId: string };
    expect((await freeze(customerId, 'freeze')).status).toBe(200);

    // The unfreeze is a maker-checker action (one pair of eyes here): a failure of auth may or may not
    // have taken effect, so the engine keeps the request EXECUTING and runs it again itself.
    proxy.when = 'before';
    const failed = await freeze(customerId, 'unfreeze');
    expect([failed.status, failed.body.code]).toEqual([502, 'UPSTREAM_UNAVAILABLE']);
    expect(await shownStatus(customerId)).toBe('frozen');
    expect(await authStatus(userId)).toBe('DISABLED');
    expect(await signIn(phone)).toEqual([403, 'ACCOUNT_DISABLED']);
    const again = await freeze(customerId, 'unfreeze');
    expect([again.status, again.body.code]).toEqual([409, 'APPROVAL_DUPLICATE_PENDING']);

    // auth re-enables the user but the answer is lost: the customer still shows (and is, for money) frozen.
    proxy.when = 'after';
    await eventually(() => authStatus(userId), 'ACTIVE');
    expect(await shownStatus(customerId)).toBe('frozen');

    // auth answers again: the engine's next run completes it, once.
    proxy.when = 'off';
    await eventually(() => shownStatus(customerId), 'active');
    expect(await events(customerId)).toBe(2);
    expect((await signIn(phone))[0]).toBe(200);
    const done = await freeze(customerId, 'unfreeze');
    expect([done.status, done.body.status]).toEqual([200, 'active']);
  });
});
