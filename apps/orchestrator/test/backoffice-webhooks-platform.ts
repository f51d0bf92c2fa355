import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { verify } from '@mm/webhook-signature';
import { authApp } from '../../auth/src/auth.app';
import { ledgerWalletsApp } from '../../ledger-wallets/src/ledger-wallets.app';
import { partnersApp } from '../../partners/src/partners.app';
import { webhookDispatcherApp } from '../../webhook-dispatcher/src/webhook-dispatcher.app';
import { orchestratorApp } from '../src/orchestrator.app';
import { type RunningApp, boot } from '../../../test/support/boot';
import { type TestDatabase, callerKey, createTestDatabase, createTestRedis, serviceEnv } from '../../../test/support/test-env';
import { DeferredForwarder, E2E_ADMIN, orchestratorInternalUrl } from '../../../test/e2e/partners-support';
import { StaffSignIn, authDevOutbox } from '../../../test/support/staff-sign-in';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers field by field
export type Json = any;

export interface Answer {
  status: number;
  body: Json;
}

export interface Delivery {
  eventId: string;
  event: string;
  verified: boolean;
  status: number;
}

/**
 * A partner's receiver that the test steers: it verifies each delivery's signature and answers 200,
 * or, while `failing` is set, that status with a body (so attempts have an excerpt to show).
 */
export class SteeredReceiver {
  readonly deliveries: Delivery[] = [];
  secrets: string[] = [];
  /** answer this instead of 200; `times` deliveries (Infinity: until cleared) */
  failing: { status: number; body: string; times: number } | null = null;
  private server?: http.Server;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const body = JSON.parse(raw) as { id: string; event: string };
        const verified = verify(req.headers['svc-signature'], raw, this.secrets).ok;
        let status = verified ? 200 : 400;
        let answer = '';
        if (this.failing && this.failing.times > 0) {
          status = this.failing.status;
          answer = this.failing.body;
          this.failing.times -= 1;
        }
        this.deliveries.push({ eventId: body.id, event: body.event, verified, status });
        res.writeHead(status, { 'content-type': 'text/plain' }).end(answer);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  /** Verified 2xx deliveries of one event. */
  delivered(eventId: string): number {
    return this.deliveries.filter((d) => d.eventId === eventId && d.verified && d.status === 200).length;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * The five real services on one cloned database and one Redis namespace, as PartnersPlatform runs
 * them, with a dispatcher whose retries are 5 ms apart (an event uses its eight attempts in under a
 * second, so `failed` is reachable in a test) and a receiver the test steers.
 */
export class WebhookOpsPlatform {
  db!: TestDatabase;
  readonly redis = createTestRedis();
  readonly receiver = new SteeredReceiver();
  private readonly forwarder = new DeferredForwarder();
  apps: RunningApp[] = [];
  authUrl = '';
  gateway!: RunningApp;
  sql!: Client;

  async start(): Promise<this> {
    this.db = await createTestDatabase();
    await this.receiver.start();
    await this.forwarder.start();
    const env = (service: Parameters<typeof serviceEnv>[0], extra: Record<string, string> = {}) =>
      serviceEnv(service, this.db, this.redis, extra);
    const keep = <A extends RunningApp>(a: A): A => (this.apps.push(a), a);
    const [auth, dispatcher] = await Promise.all([
      boot(authApp, env('auth', { BOOTSTRAP_ADMIN_PHONE: E2E_ADMIN.phone, BOOTSTRAP_ADMIN_PIN: E2E_ADMIN.pin }), { listen: true }).then(
        keep,
      ),
      boot(webhookDispatcherApp, env('webhook-dispatcher', { WEBHOOK_BACKOFF_BASE_MS: '5' }), { listen: true }).then(keep),
    ]);
    this.authUrl = auth.url;
    const ledger = keep(
      await boot(
        ledgerWalletsApp,
        env('ledger-wallets', { AUTH_URL: auth.url, LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0', LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false' }),
        { listen: true },
      ),
    );
    this.gateway = await bootPartnersAndGateway({ env, keep, forwarder: this.forwarder, auth, ledger, dispatcher });
    this.sql = new Client({ connectionString: this.db.adminUrl });
    await this.sql.connect();
    return this;
  }

  async stop(): Promise<void> {
    await this.sql?.end();
    for (const app of [...this.apps].reverse()) await app.close();
    await this.receiver.stop();
    await this.forwarder.stop();
    await this.redis.flush();
    await this.db?.drop();
  }

  async call(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.gateway.url}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await res.text();
    let body: Json = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return { status: res.status, body };
  }

  /** Staff sign-ins: every staff member, the administrator too, enrols at the first sign-in (the SMS code read from auth's dev outbox). */
  private readonly staffSignIn = new StaffSignIn((path, body) => this.call('POST', path, { body })).readSmsCodesWith(
    authDevOutbox(() => this.authUrl),
  );

  /** Signs in; staff answer their second factor (enrolled at the first sign-in, the secret kept per phone). */
  async login(phone: string, pin: string): Promise<string> {
    const res = await this.staffSignIn.login(phone, pin);
    if (res.status !== 200) throw new Error(`login ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token as string;
  }

  /**
   * A user made straight through auth's internal steps with these roles (no orchestrator side),
   * signed in: a second administrator, which the staff route does not create.
   */
  async authUser(phone: string, pin: string, roles: string[]): Promise<string> {
    const headers = { 'x-service-key': callerKey('orchestrator'), 'content-type': 'application/json' };
    const auth = this.authUrl;
    const idp = await fetch(`${auth}/auth/internal/create-idp-user`, { method: 'POST', headers, body: JSON.stringify({ phone, pin }) });
    const { idpUserId } = (await idp.json()) as { idpUserId: string };
    const local = await fetch(`${auth}/auth/internal/create-local-user`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ idpUserId, roles }),
    });
    if (local.status !== 201) throw new Error(`create-local-user ${local.status} ${await local.text()}`);
    return this.login(phone, pin);
  }

  /** A staff member created by the administrator, signed in. */
  async staff(admin: string, role: string, phone: string, pin = '2580'): Promise<string> {
    const res = await this.call('POST', '/api/orchestrator/admin/staff', {
      token: admin,
      body: { phone, pin, firstName: 'Awa', lastName: 'Staff', countryCode: 'CM', role },
    });
    if (res.status !== 201) throw new Error(`staff ${role} ${res.status} ${JSON.stringify(res.body)}`);
    return this.login(phone, pin);
  }
}

/** Polls `probe` until it returns a value, or fails after `timeoutMs` with the last value seen. */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Boots partners, then the orchestrator in front of the already running auth, ledger and dispatcher,
 * and points the forwarder (partners' way back to the orchestrator) at it. Returns the orchestrator.
 */
export async function bootPartnersAndGateway(services: {
  env: (service: Parameters<typeof serviceEnv>[0], extra?: Record<string, string>) => Record<string, string | undefined>;
  keep: <A extends RunningApp>(a: A) => A;
  forwarder: DeferredForwarder;
  auth: RunningApp;
  ledger: RunningApp;
  dispatcher: RunningApp;
}): Promise<RunningApp> {
  const { env, keep, forwarder, auth, ledger, dispatcher } = services;
  const partners = keep(
    await boot(
      partnersApp,
      env('partners', { ORCHESTRATOR_URL: forwarder.url, WEBHOOK_DISPATCHER_URL: dispatcher.url, PARTNERS_SWEEP_INTERVAL_MS: '0' }),
      { listen: true },
    ),
  );
  const gateway = keep(
    await boot(
      orchestratorApp,
      env('orchestrator', {
        AUTH_URL: auth.url,
        PARTNERS_URL: partners.url,
        LEDGER_URL: ledger.url,
        WEBHOOK_DISPATCHER_URL: dispatcher.url,
      }),
      { listen: true },
    ),
  );
  forwarder.target = orchestratorInternalUrl(gateway);
  return gateway;
}
