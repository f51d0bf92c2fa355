import { Client } from 'pg';
import type { Logger } from '@mm/platform';
import { authApp } from '../../src/auth.app';
import type { AuthConfig } from '../../src/auth.config';
import { type RunningApp, boot } from '../../../../test/support/boot';
import { StaffSignIn, devOutboxReader } from '../../../../tools/staff-sign-in';
import { type TestDatabase, callerKey, createTestDatabase, createTestRedis, serviceEnv } from '../../../../test/support/test-env';

/** The default view of a JSON answer: the error body fields, plus anything else. */
export type JsonBody = { code?: string; message?: string; errors?: Array<{ field: string; code: string }> } & Record<string, unknown>;

export interface InjectResult {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  json<T = JsonBody>(): T;
}

/**
 * Abuse limits far above what any test here does: every request comes from 127.0.0.1 and the
 * lockout and OTP tests retry one phone many times. The limiter still runs on every request;
 * rate-limits.test.ts sets real numbers.
 */
export const GENEROUS_RATE_LIMITS: Record<string, string> = Object.fromEntries(
  ['LOGIN', 'OTP_SEND', 'OTP_VERIFY'].flatMap((policy) => [
    [`${policy}_LIMIT_PER_PHONE`, '100000'],
    [`${policy}_LIMIT_PER_IP`, '100000'],
  ]),
);

/** One auth app on a private database and Redis namespace, with helpers for the usual steps. */
export class AuthHarness {
  running!: RunningApp<AuthConfig>;
  env: Record<string, string | undefined> = {};
  private db!: TestDatabase;
  private readonly redis = createTestRedis();
  /** Staff sign-ins: the second step computed from the secret each staff member enrolled with here (the enrolment's SMS code read from the dev outbox). */
  readonly staff = new StaffSignIn(async (path, body) => {
    const res = await this.request('POST', path, { body });
    return { status: res.statusCode, body: res.json() };
  }, '/auth').readSmsCodesWith(
    devOutboxReader(async (path) => {
      const res = await this.request('GET', path);
      return { status: res.statusCode, body: res.json() };
    }, '/auth'),
  );

  async start(overrides: Record<string, string | undefined> = {}, logger?: Logger): Promise<this> {
    this.db = await createTestDatabase();
    // No response-time floor on code sends, and no clean-up timer deleting rows a test ages by hand,
    // unless a test sets them (otp-same-answer.test.ts, otp-decoy-and-cleanup.test.ts do).
    this.env = serviceEnv('auth', this.db, this.redis, {
      OTP_RESEND_COOLDOWN_SEC: '0',
      OTP_SEND_MIN_MS: '0',
      OTP_CLEANUP_INTERVAL_MS: '0',
      ...GENEROUS_RATE_LIMITS,
      ...overrides,
    });
    this.running = await boot(authApp, this.env, { logger });
    return this;
  }

  async stop(): Promise<void> {
    await this.running?.close();
    await this.redis.flush();
    await this.db?.drop();
  }

  get app(): RunningApp<AuthConfig>['app'] {
    return this.running.app;
  }

  get adminUrl(): string {
    return this.db.adminUrl;
  }

  async request(
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    options: { body?: unknown; token?: string; serviceKey?: boolean; headers?: Record<string, string> } = {},
  ): Promise<InjectResult> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    // auth's internal routes are the orchestrator's alone (apps/auth/src/internal-callers.ts)
    if (options.serviceKey) headers['x-service-key'] = callerKey('orchestrator');
    const res = await this.app.inject({ method, url, headers, payload: options.body as never });
    return res as unknown as InjectResult;
  }

  /** Registers through the internal saga steps, as the orchestrator does. */
  async createUser(phone: string, pin: string, roles: string[] = ['CUSTOMER']): Promise<{ userId: string; idpUserId: string }> {
    const idp = await this.request('POST', '/auth/internal/create-idp-user', { serviceKey: true, body: { phone, pin } });
    if (idp.statusCode !== 201) throw new Error(`create-idp-user ${idp.statusCode} ${idp.body}`);
    const idpUserId = idp.json<{ idpUserId: string }>().idpUserId;
    const local = await this.request('POST', '/auth/internal/create-local-user', { serviceKey: true, body: { idpUserId, roles } });
    if (local.statusCode !== 201) throw new Error(`create-local-user ${local.statusCode} ${local.body}`);
    return { userId: local.json<{ id: string }>().id, idpUserId };
  }

  /** Signs in; staff with their second factor (enrolled at their first sign-in here). */
  async login(phone: string, pin: string): Promise<{ token: string; refreshToken: string }> {
    const res = await this.staff.login(phone, pin);
    if (res.status !== 200) throw new Error(`login ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { token: string; refreshToken: string };
  }

  /** One statement as the database superuser, on a connection of its own (reads and test set-up). */
  async sql<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
    const pg = new Client({ connectionString: this.adminUrl });
    await pg.connect();
    try {
      return (await pg.query(text, params)).rows as T[];
    } finally {
      await pg.end();
    }
  }

  /** The one-time codes stored for a phone, oldest first: stand-in or real, and whether still usable. */
  otpStates(phone: string): Promise<{ decoy: boolean; live: boolean }[]> {
    return this.sql(
      `SELECT decoy, (consumed_at IS NULL AND discarded_at IS NULL) AS live FROM auth.otp_codes WHERE phone = $1 ORDER BY created_at`,
      [phone],
    );
  }

  /** The last code the dev SMS driver "sent" to this phone. */
  async lastOtp(phone: string): Promise<string> {
    const res = await this.request('GET', `/auth/dev/sms?phone=${encodeURIComponent(phone)}`);
    const text = res.json<{ messages: Array<{ text: string }> }>().messages[0]?.text ?? '';
    const code = /\b(\d{6})\b/.exec(text)?.[1];
    if (!code) throw new Error(`no OTP for this phone (${res.statusCode})`);
    return code;
  }
}
