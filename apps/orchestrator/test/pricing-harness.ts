import { Client } from 'pg';
import { authApp } from '../../auth/src/auth.app';
import { orchestratorApp } from '../src/orchestrator.app';
import type { OrchestratorConfig } from '../src/orchestrator.config';
import { type RunningApp, boot } from '../../../test/support/boot';
import { StaffSignIn, TEST_ADMIN_TOTP_SECRET, authDevOutbox } from '../../../test/support/staff-sign-in';
import { type TestDatabase, callerKey, createTestDatabase, createTestRedis, serviceEnv } from '../../../test/support/test-env';

export const ADMIN_PHONE = '+237690001001';
export const ADMIN_PIN = '4826';

export interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  json<T = Record<string, unknown>>(): T;
}

/**
 * The orchestrator booted in-process on its own cloned database and Redis namespace (its own
 * role, as in production), plus a superuser connection to the same database for arranging rows
 * and checking the database's own guards.
 */
export class OrchestratorHarness {
  running!: RunningApp<OrchestratorConfig>;
  /** the real auth service (listening), when started with `withAuth` */
  auth?: RunningApp;
  sql!: Client;
  db!: TestDatabase;
  readonly redis = createTestRedis();

  /** `withAuth`: also boots auth with a bootstrap administrator, and points the orchestrator at it. */
  async start(overrides: Record<string, string> = {}, options: { withAuth?: boolean } = {}): Promise<this> {
    this.db = await createTestDatabase();
    if (options.withAuth) {
      this.auth = await boot(
        authApp,
        serviceEnv('auth', this.db, this.redis, {
          BOOTSTRAP_ADMIN_PHONE: ADMIN_PHONE,
          BOOTSTRAP_ADMIN_PIN: ADMIN_PIN,
          BOOTSTRAP_ADMIN_TOTP_SECRET: TEST_ADMIN_TOTP_SECRET,
        }),
        {
          listen: true,
        },
      );
      overrides = { AUTH_URL: this.auth.url, ...overrides };
    }
    // These tests change the configuration as one administrator: CONFIG_CHANGE runs on one pair of
    // eyes here (the four-eyes default is tested in approvals-config-change.test.ts).
    this.running = await boot(
      orchestratorApp,
      serviceEnv('orchestrator', this.db, this.redis, { APPROVALS_ONE_PERSON_ACTIONS: 'CONFIG_CHANGE', ...overrides }),
    );
    this.sql = new Client({ connectionString: this.db.adminUrl });
    await this.sql.connect();
    return this;
  }

  async stop(): Promise<void> {
    await this.sql?.end();
    await this.running?.close();
    await this.auth?.close();
    await this.redis.flush();
    await this.db?.drop();
  }

  get<T>(token: new (...args: never[]) => T): T {
    return this.running.app.get(token);
  }

  /** Staff sign-ins with their second factor: the administrator's secret is known, other staff enrol at their first login. */
  private readonly staff = new StaffSignIn(async (path, body) => {
    const res = await fetch(`${this.auth!.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  }, '/auth')
    .knowSecret(ADMIN_PHONE, TEST_ADMIN_TOTP_SECRET)
    .readSmsCodesWith(authDevOutbox(() => this.auth!.url));

  /** Logs in through the real auth service (staff with their second factor): an access token and the user id it carries. */
  async login(phone: string, pin: string): Promise<{ token: string; userId: string }> {
    const res = await this.staff.login(phone, pin);
    if (res.status !== 200) throw new Error(`login ${res.status} ${JSON.stringify(res.body)}`);
    const { token } = res.body as { token: string };
    const { sub } = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sub: string };
    return { token, userId: sub };
  }

  /** A user with the given auth roles, created through auth's internal routes (as the registration saga does). */
  async createUser(phone: string, pin: string, roles: string[]): Promise<void> {
    const call = async (path: string, body: unknown) => {
      const res = await fetch(`${this.auth!.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-key': callerKey('orchestrator') },
        body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`${path} ${res.status} ${await res.text()}`);
      return (await res.json()) as Record<string, string>;
    };
    const { idpUserId } = await call('/auth/internal/create-idp-user', { phone, pin });
    await call('/auth/internal/create-local-user', { idpUserId, roles });
  }

  async request(method: 'GET' | 'POST' | 'DELETE', url: string, options: { body?: unknown; token?: string } = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    return (await this.running.app.inject({ method, url, headers, payload: options.body as never })) as unknown as Answer;
  }
}
