import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '@mm/platform';
import { AuthHarness, type InjectResult } from './support/auth-harness';

/**
 * The code-sending routes must not tell a phone with an account from one without: same status,
 * same body, no answer sooner than OTP_SEND_MIN_MS, whether the SMS provider works, fails or is
 * slow. The provider is a local HTTP stub behind the real HTTP driver.
 */
const FLOOR_MS = 40;
const KNOWN = ['+237690000701', '+237690000702', '+237690000703', '+237690000704', '+237690000705', '+237690000706'];
const UNKNOWN = ['+237690000751', '+237690000752', '+237690000753', '+237690000754', '+237690000755', '+237690000756'];

type ProviderMode = 'ok' | 'fail' | 'hold';

class SmsProviderStub {
  mode: ProviderMode = 'ok';
  readonly received: Array<{ to: string; text: string }> = [];
  /** held requests (mode `hold`): answered by `release`; `ended` turns true if the caller gave up first */
  readonly held: Array<{ res: ServerResponse; ended: boolean }> = [];
  private readonly server = createServer((req: IncomingMessage, res) => {
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString('utf8')));
    req.on('end', () => {
      this.received.push(JSON.parse(data) as { to: string; text: string });
      if (this.mode === 'hold') {
        const entry = { res, ended: false };
        res.on('close', () => (entry.ended = true));
        this.held.push(entry);
        return;
      }
      res.statusCode = this.mode === 'ok' ? 202 : 503;
      res.end();
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/sms`;
  }

  release(): void {
    for (const h of this.held.splice(0)) if (!h.ended) h.res.writeHead(202).end();
  }

  codeFor(phone: string): string | undefined {
    const last = this.received.filter((m) => m.to === phone).at(-1);
    return last && /\b(\d{6})\b/.exec(last.text)?.[1];
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

describe('auth: code-sending routes answer alike for known and unknown phones', () => {
  const provider = new SmsProviderStub();
  const h = new AuthHarness();
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });

  beforeAll(async () => {
    const url = await provider.start();
    await h.start(
      {
        SMS_DRIVER: 'http',
        SMS_PROVIDER_URL: url,
        // long enough that the held request of the slow-provider case is still open when auth answers
        SMS_PROVIDER_TIMEOUT_MS: '3000',
        OTP_SEND_MIN_MS: String(FLOOR_MS),
        // the real cooldown: a second send within it must be refused alike for both kinds of phone
        OTP_RESEND_COOLDOWN_SEC: '60',
      },
      createLogger({ service: 'auth', level: 'info', destination }),
    );
    for (const phone of KNOWN) await h.createUser(phone, '2580');
  });
  afterAll(async () => {
    await h.stop();
    await provider.stop();
  });

  const routes = {
    'send-otp': (phone: string) => h.request('POST', '/auth/send-otp', { body: { phone, purpose: 'LOGIN' } }),
    'reset-pin/request': (phone: string) => h.request('POST', '/auth/reset-pin/request', { body: { phone } }),
  };

  /** The answer, and how long it took (only ever compared with the floor, from below). */
  async function timed(call: () => Promise<InjectResult>): Promise<{ res: InjectResult; ms: number }> {
    const started = performance.now();
    const res = await call();
    return { res, ms: performance.now() - started };
  }

  /** Status and body; an error body's requestId is per request, so it is left out. */
  function visible(res: InjectResult): { status: number; body: Record<string, unknown> } {
    const { requestId: _requestId, ...body } = res.json<Record<string, unknown>>();
    return { status: res.statusCode, body };
  }

  /** A throttle's message names the seconds left; everything else must be identical. */
  function withoutSeconds(v: { status: number; body: Record<string, unknown> }): typeof v {
    const message = typeof v.body.message === 'string' ? v.body.message.replace(/\d+ seconds?/, '<n> seconds') : v.body.message;
    return { ...v, body: { ...v.body, message } };
  }

  async function smsCounter(purpose: string, outcome: string): Promise<number> {
    const text = (await h.request('GET', '/metrics')).body;
    const line = text.split('\n').find((l) => l.startsWith(`auth_otp_sms_total{purpose="${purpose}",outcome="${outcome}"}`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  }

  /** The counter is incremented when the provider call settles, which may be just after the answer. */
  async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    let value = await read();
    for (let i = 0; i < 100 && !done(value); i++) {
      await new Promise((r) => setTimeout(r, 20));
      value = await read();
    }
    return value;
  }

  let next = 0;
  it.each([
    ['send-otp', 'ok'],
    ['reset-pin/request', 'ok'],
    ['send-otp', 'fail'],
    ['reset-pin/request', 'fail'],
  ] as const)('%s with the provider %s: same status and body, none sooner than the floor', async (route, mode) => {
    const [known, unknown] = [KNOWN[next], UNKNOWN[next]];
    next++;
    provider.mode = mode;
    const purpose = route === 'send-otp' ? 'LOGIN' : 'PIN_RESET';
    const failedBefore = await smsCounter(purpose, 'failed');

    const a = await timed(() => routes[route](known));
    const b = await timed(() => routes[route](unknown));
    expect(visible(a.res)).toEqual(visible(b.res));
    expect(visible(a.res)).toEqual({ status: 202, body: { sent: true, expiresInSec: 300, resendAfterSec: 60 } });
    expect(a.ms).toBeGreaterThanOrEqual(FLOOR_MS - 1);
    expect(b.ms).toBeGreaterThanOrEqual(FLOOR_MS - 1);
    // A code went out (or was tried) for the account, nothing for the unknown phone.
    expect(provider.codeFor(known)).toMatch(/^\d{6}$/);
    expect(provider.codeFor(unknown)).toBeUndefined();

    // Refused alike within the cooldown, the error no sooner than the floor either: a failed SMS
    // does not give the account its cooldown back (that would answer 202 here for it alone).
    // The seconds left count from each phone's own first request, and the unknown phone's came at
    // least one floor later: on a busy machine the two counts may straddle a second. That says
    // nothing the caller does not know already (it timed its own requests), so the number is
    // compared within the gap between the first two requests, the rest exactly.
    const again = await Promise.all([timed(() => routes[route](known)), timed(() => routes[route](unknown))]);
    expect(withoutSeconds(visible(again[0].res))).toEqual(withoutSeconds(visible(again[1].res)));
    expect(again[0].res.statusCode).toBe(429);
    expect(again[0].res.json().code).toBe('OTP_THROTTLED');
    const [knownLeft, unknownLeft] = again.map(({ res }) => Number(res.headers['retry-after']));
    expect(unknownLeft - knownLeft).toBeGreaterThanOrEqual(0);
    expect(unknownLeft - knownLeft).toBeLessThanOrEqual(Math.ceil(a.ms / 1000));
    for (const { ms } of again) expect(ms).toBeGreaterThanOrEqual(FLOOR_MS - 1);

    if (mode === 'fail') {
      // Counted, logged as a warning with the request's id, and the stored code still works (the
      // provider may have delivered it after all).
      expect(
        await eventually(
          () => smsCounter(purpose, 'failed'),
          (n) => n === failedBefore + 1,
        ),
      ).toBe(failedBefore + 1);
      const warning = lines.find((l) => l.msg === 'OTP SMS not delivered' && l.requestId === a.res.headers['x-request-id']);
      expect(warning).toMatchObject({ level: 40, purpose, phone: expect.not.stringContaining(known.slice(-6)) });
      const verified = await h.request('POST', '/auth/verify-otp', { body: { phone: known, purpose, otp: provider.codeFor(known) } });
      expect(verified.statusCode).toBe(200);
    }
  });

  it('a slow provider does not hold the answer back: the message is still with the provider when auth answers', async () => {
    const [known, unknown] = [KNOWN[next], UNKNOWN[next]];
    provider.mode = 'hold';
    const [sentBefore, failedBefore] = [await smsCounter('LOGIN', 'sent'), await smsCounter('LOGIN', 'failed')];

    const a = await timed(() => routes['send-otp'](known));
    const b = await timed(() => routes['send-otp'](unknown));
    expect(visible(a.res)).toEqual(visible(b.res));
    expect(a.res.statusCode).toBe(202);
    expect(a.ms).toBeGreaterThanOrEqual(FLOOR_MS - 1);
    expect(b.ms).toBeGreaterThanOrEqual(FLOOR_MS - 1);

    // Only now does the provider accept the message. Had auth waited for the provider before
    // answering, its call would have timed out (SMS_PROVIDER_TIMEOUT_MS) and counted as failed.
    await eventually(
      async () => provider.held.length,
      (n) => n === 1,
    );
    provider.release();
    expect(
      await eventually(
        () => smsCounter('LOGIN', 'sent'),
        (n) => n === sentBefore + 1,
      ),
    ).toBe(sentBefore + 1);
    expect(await smsCounter('LOGIN', 'failed')).toBe(failedBefore);
    provider.mode = 'ok';
  });
});
