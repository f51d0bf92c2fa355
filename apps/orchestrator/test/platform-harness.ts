import { Client } from 'pg';
import { type Logger, internalListenerOf } from '@mm/platform';
import { authApp } from '../../auth/src/auth.app';
import type { AuthConfig } from '../../auth/src/auth.config';
import { ledgerWalletsApp } from '../../ledger-wallets/src/ledger-wallets.app';
import { orchestratorApp } from '../src/orchestrator.app';
import type { OrchestratorConfig } from '../src/orchestrator.config';
import { type RunningApp, boot } from '../../../test/support/boot';
import { StaffSignIn, TEST_ADMIN_TOTP_SECRET, authDevOutbox } from '../../../test/support/staff-sign-in';
import { type TestDatabase, callerKey, createTestDatabase, createTestRedis, serviceEnv } from '../../../test/support/test-env';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert response fields one by one
export type Json = any;

export interface Answer {
  status: number;
  headers: Headers;
  body: Json;
}

export const ADMIN_PHONE = '+237699000001';
export const ADMIN_PIN = '4826';
/** The bootstrap administrator's TOTP secret (auth's BOOTSTRAP_ADMIN_TOTP_SECRET here). */
export const ADMIN_TOTP_SECRET = TEST_ADMIN_TOTP_SECRET;

export interface HarnessOptions {
  orchestrator?: Record<string, string | undefined>;
  auth?: Record<string, string | undefined>;
  orchestratorLogger?: Logger;
}

/**
 * The real auth, ledger-wallets and orchestrator (the gateway) on one cloned database (each with
 * its own schema and role, as in production) and one Redis namespace, listening on loopback.
 * Every call goes through the gateway over HTTP, as a client's would.
 */
export class PlatformHarness {
  db!: TestDatabase;
  readonly redis = createTestRedis();
  auth!: RunningApp<AuthConfig>;
  ledger!: RunningApp;
  orchestrator!: RunningApp<OrchestratorConfig>;
  sql!: Client;
  /** Staff sign-ins with their second factor: the administrator's secret is known, other staff enrol at their first login. */
  readonly staff = new StaffSignIn((path, body) => this.call('POST', path, { body }))
    .knowSecret(ADMIN_PHONE, ADMIN_TOTP_SECRET)
    .readSmsCodesWith(authDevOutbox(() => this.auth.url));
  private options: HarnessOptions = {};

  async start(options: HarnessOptions = {}): Promise<this> {
    this.options = options;
    this.db = await createTestDatabase();
    // Auth first: the ledger checks operators' tokens (corrections, audits) against auth's keys.
    this.auth = await boot(
      authApp,
      serviceEnv('auth', this.db, this.redis, {
        OTP_RESEND_COOLDOWN_SEC: '0',
        BOOTSTRAP_ADMIN_PHONE: ADMIN_PHONE,
        BOOTSTRAP_ADMIN_PIN: ADMIN_PIN,
        BOOTSTRAP_ADMIN_TOTP_SECRET: ADMIN_TOTP_SECRET,
        TRUST_FORWARDED_FOR: 'true',
        ...options.auth,
      }),
      { listen: true },
    );
    this.ledger = await boot(
      ledgerWalletsApp,
      serviceEnv('ledger-wallets', this.db, this.redis, {
        AUTH_URL: this.auth.url,
        LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
        LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
        LEDGER_OUTBOX_POLL_MS: '0',
      }),
      { listen: true },
    );
    await this.startOrchestrator(options.orchestrator, options.orchestratorLogger);
    this.sql = new Client({ connectionString: this.db.adminUrl });
    await this.sql.connect();
    return this;
  }

  orchestratorEnv(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
    return serviceEnv('orchestrator', this.db, this.redis, {
      AUTH_URL: this.auth.url,
      LEDGER_URL: this.ledger.url,
      // partners and the dispatcher are not booted here: nothing listens on port 9
      PARTNERS_URL: 'http://127.0.0.1:9',
      WEBHOOK_DISPATCHER_URL: 'http://127.0.0.1:9',
      SAGA_FAULT_INJECTION: 'true',
      SMS_RELAY_POLL_MS: '100',
      ...overrides,
    });
  }

  async startOrchestrator(overrides: Record<string, string | undefined> = {}, logger?: Logger): Promise<void> {
    this.orchestrator = await boot(orchestratorApp, this.orchestratorEnv({ ...this.options.orchestrator, ...overrides }), {
      listen: true,
      logger,
    });
  }

  async restartOrchestrator(overrides: Record<string, string | undefined> = {}, logger?: Logger): Promise<void> {
    await this.orchestrator.close();
    await this.startOrchestrator(overrides, logger);
  }

  async stop(): Promise<void> {
    await this.sql?.end();
    await Promise.all([this.orchestrator, this.auth, this.ledger].filter(Boolean).map((a) => a.close()));
    await this.redis.flush();
    await this.db?.drop();
  }

  /** A call through the gateway. */
  async call(
    method: string,
    path: string,
    options: { body?: unknown; token?: string; headers?: Record<string, string>; base?: string } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${options.base ?? this.orchestrator.url}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await res.text();
    let body: Json = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body };
  }

  /** The orchestrator's internal listener (internal routes, /metrics), as other services reach it. */
  get internalUrl(): string {
    const listener = internalListenerOf(this.orchestrator.app);
    if (!listener) throw new Error('the orchestrator has no internal listener');
    return listener.url;
  }

  /** A call to an internal route of the orchestrator, on its internal listener, with partners' key (its only caller). */
  internal(method: string, path: string, options: { token?: string; serviceKey?: boolean } = {}): Promise<Answer> {
    const headers: Record<string, string> = options.serviceKey === false ? {} : { 'x-service-key': callerKey('partners') };
    return this.call(method, path, { headers, token: options.token, base: this.internalUrl });
  }

  /** Signs in through the gateway; staff with their second factor (StaffSignIn). Answers the access token. */
  async login(phone: string, pin: string): Promise<string> {
    const res = await this.staff.login(phone, pin);
    if (res.status !== 200) throw new Error(`login ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token as string;
  }

  private admin?: { token: string; expiresAt: number };

  /**
   * An access token of the bootstrap administrator: the last one while it is good for another
   * minute and its session is live (auth accepts each TOTP step once, so signing in at every call
   * would wait for new steps), else a new sign-in.
   */
  async adminToken(): Promise<string> {
    if (this.admin && this.admin.expiresAt - Date.now() > 60_000) {
      if ((await this.call('GET', '/api/auth/me', { token: this.admin.token })).status === 200) return this.admin.token;
    }
    const res = await this.staff.login(ADMIN_PHONE, ADMIN_PIN);
    if (res.status !== 200) throw new Error(`admin login ${res.status} ${JSON.stringify(res.body)}`);
    this.admin = { token: res.body.token as string, expiresAt: Date.parse(res.body.expiresAt as string) };
    return this.admin.token;
  }

  /** The last code auth's development SMS driver "sent" to this phone. */
  async lastOtp(phone: string): Promise<string> {
    const res = await fetch(`${this.auth.url}/auth/dev/sms?phone=${encodeURIComponent(phone)}`);
    const text = ((await res.json()) as { messages: Array<{ text: string }> }).messages[0]?.text ?? '';
    const code = /\b(\d{6})\b/.exec(text)?.[1];
    if (!code) throw new Error('no OTP for this phone');
    return code;
  }

  async count(sql: string, params: unknown[] = []): Promise<number> {
    return Number((await this.sql.query(sql, params)).rows[0].n);
  }

  /** A user created directly through auth's internal steps (no orchestrator side), for guard tests. */
  async authUser(phone: string, pin: string, roles: string[]): Promise<string> {
    const key = { 'x-service-key': callerKey('orchestrator'), 'content-type': 'application/json' };
    const idp = await fetch(`${this.auth.url}/auth/internal/create-idp-user`, {
      method: 'POST',
      headers: key,
      body: JSON.stringify({ phone, pin }),
    });
    const { idpUserId } = (await idp.json()) as { idpUserId: string };
    const local = await fetch(`${this.auth.url}/auth/internal/create-local-user`, {
      method: 'POST',
      headers: key,
      body: JSON.stringify({ idpUserId, roles }),
    });
    if (local.status !== 201) throw new Error(`create-local-user ${local.status} ${await local.text()}`);
    return ((await local.json()) as { id: string }).id;
  }
}
