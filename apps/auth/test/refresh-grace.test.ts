import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { createLogger } from '@mm/platform';
import { authApp } from '../src/auth.app';
import { type RunningApp, boot } from '../../../test/support/boot';
import { AuthHarness, type InjectResult } from './support/auth-harness';

const PIN = '2580';

interface Pair {
  token: string;
  refreshToken: string;
  tokenType: string;
  expiresIn: number;
  expiresAt: string;
}

let phoneSeq = 0;
const freshPhone = (): string => `+2376960${String(++phoneSeq).padStart(5, '0')}`;

/** Polls `check` until it holds or the deadline passes: waiting on a condition, never a fixed sleep. */
async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('auth: refresh grace window', () => {
  const lines: string[] = [];
  const h = new AuthHarness();
  let pg: Client;
  let redis: Redis;

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    await h.start({ LOG_LEVEL: 'debug', REFRESH_GRACE_SEC: '10' }, createLogger({ service: 'auth', level: 'debug', destination }));
    pg = new Client({ connectionString: h.adminUrl });
    await pg.connect();
    redis = new Redis(h.env.REDIS_URL!);
  });
  afterAll(async () => {
    redis?.disconnect();
    await pg?.end();
    await h.stop();
  });

  const refresh = (refreshToken: string, app: { inject: RunningApp['app']['inject'] } = h.app): Promise<InjectResult> =>
    app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken } }) as unknown as Promise<InjectResult>;
  const me = async (token: string, app: { inject: RunningApp['app']['inject'] } = h.app): Promise<string | undefined> => {
    const res = (await app.inject({
      method: 'GET',
      url: '/auth/me',
      headers: { authorization: `Bearer ${token}` },
    })) as unknown as InjectResult;
    return res.statusCode === 200 ? 'OK' : res.json().code;
  };
  const newSession = async (): Promise<{ token: string; refreshToken: string }> => {
    const phone = freshPhone();
    await h.createUser(phone, PIN);
    return h.login(phone, PIN);
  };
  const tokensOfSession = async (sessionId: string): Promise<number> =>
    Number((await pg.query(`SELECT count(*) AS n FROM auth.refresh_tokens WHERE session_id = $1`, [sessionId])).rows[0].n);
  const sessionOf = (token: string): string => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sid as string;

  it('answers a retried refresh with the very same pair, and the session goes on', async () => {
    const login = await newSession();
    const first = await refresh(login.refreshToken);
    expect(first.statusCode).toBe(200);
    const pair = first.json<Pair>();
    const retry = await refresh(login.refreshToken);
    expect(retry.statusCode).toBe(200);
    const again = retry.json<Pair>();
    expect(again).toMatchObject({ token: pair.token, refreshToken: pair.refreshToken, expiresAt: pair.expiresAt, tokenType: 'Bearer' });
    expect(again.expiresIn).toBeGreaterThan(0);
    expect(again.expiresIn).toBeLessThanOrEqual(pair.expiresIn);
    // One rotation happened, not two: the login token and its one successor.
    expect(await tokensOfSession(sessionOf(pair.token))).toBe(2);
    expect(await me(pair.token)).toBe('OK');
    // The pair keeps working as usual.
    const next = await refresh(pair.refreshToken);
    expect(next.statusCode).toBe(200);
    expect(await me(next.json<Pair>().token)).toBe('OK');
  });

  it('gives every one of simultaneous refreshes with one token the same pair', async () => {
    const login = await newSession();
    const results = await Promise.all(Array.from({ length: 5 }, () => refresh(login.refreshToken)));
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    const pairs = results.map((r) => r.json<Pair>());
    for (const pair of pairs) expect(pair).toMatchObject({ token: pairs[0].token, refreshToken: pairs[0].refreshToken });
    expect(await tokensOfSession(sessionOf(pairs[0].token))).toBe(2);
    expect((await refresh(pairs[0].refreshToken)).statusCode).toBe(200);
  });

  it('treats the old token as reused, even within the window, once the new one has been used', async () => {
    const login = await newSession();
    const pair = (await refresh(login.refreshToken)).json<Pair>();
    const later = (await refresh(pair.refreshToken)).json<Pair>();
    const reuse = await refresh(login.refreshToken);
    expect(reuse.statusCode).toBe(401);
    expect(reuse.json().code).toBe('REFRESH_TOKEN_REUSED');
    expect(await me(later.token)).toBe('TOKEN_REVOKED');
    expect((await refresh(later.refreshToken)).json().code).toBe('TOKEN_REVOKED');
  });

  it('still checks the owner: a retry sent with another user’s access token is refused and revokes nothing', async () => {
    const mine = await newSession();
    const theirs = await newSession();
    const pair = (await refresh(mine.refreshToken)).json<Pair>();
    const res = await h.request('POST', '/auth/refresh', { token: theirs.token, body: { refreshToken: mine.refreshToken } });
    expect(res.json().code).toBe('TOKEN_INVALID');
    expect(await me(pair.token)).toBe('OK');
  });

  it('keeps the pair only sealed, and only for the window', async () => {
    const login = await newSession();
    const pair = (await refresh(login.refreshToken)).json<Pair>();
    const key = `${h.env.REDIS_PREFIX}:auth:refresh-grace:${createHash('sha256').update(login.refreshToken).digest('base64url')}`;
    const stored = await redis.get(key);
    expect(stored).toMatch(/^g1\./);
    for (const secret of [pair.token, pair.refreshToken, pair.token.split('.')[1], pair.refreshToken.slice(4)]) {
      expect(stored).not.toContain(secret);
    }
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(10_000);
  });

  it('revokes the session on a reuse after the window (a one-second window on a second instance)', async () => {
    const quick = await boot(authApp, { ...h.env, REFRESH_GRACE_SEC: '1', LOG_LEVEL: 'silent' });
    try {
      const login = await newSession();
      const first = await refresh(login.refreshToken, quick.app);
      expect(first.statusCode).toBe(200);
      const pair = first.json<Pair>();
      const digest = createHash('sha256').update(login.refreshToken).digest();
      // Past the window for both clocks that define it: the database's time of use and Redis' expiry.
      await waitFor(
        async () =>
          (await redis.exists(`${h.env.REDIS_PREFIX}:auth:refresh-grace:${digest.toString('base64url')}`)) === 0 &&
          (
            await pg.query(
              `SELECT used_at < clock_timestamp() - interval '1 second' AS past FROM auth.refresh_tokens WHERE token_hash = $1`,
              [digest],
            )
          ).rows[0].past === true,
        'the end of the grace window',
      );
      const reuse = await refresh(login.refreshToken, quick.app);
      expect(reuse.statusCode).toBe(401);
      expect(reuse.json().code).toBe('REFRESH_TOKEN_REUSED');
      // (The instance has its own development signing key: its tokens are checked there.)
      expect(await me(pair.token, quick.app)).toBe('TOKEN_REVOKED');
      expect((await refresh(pair.refreshToken, quick.app)).json().code).toBe('TOKEN_REVOKED');
    } finally {
      await quick.close();
    }
  });

  it('never writes a token to the log, the replayed ones included', () => {
    const events = lines.map((l) => JSON.parse(l) as { msg?: string });
    expect(events.some((e) => e.msg === 'refresh retried within the grace window: same pair answered')).toBe(true);
    expect(events.some((e) => e.msg === 'refresh token reuse detected: session revoked')).toBe(true);
    const all = lines.join('\n');
    expect(all).not.toMatch(/rt1\.[A-Za-z0-9_-]{20,}/);
    expect(all).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.eyJ/);
  });
});
