import { Client } from 'pg';
import { authApp } from '../../apps/auth/src/auth.app';
import { ledgerWalletsApp } from '../../apps/ledger-wallets/src/ledger-wallets.app';
import { orchestratorApp } from '../../apps/orchestrator/src/orchestrator.app';
import { partnersApp } from '../../apps/partners/src/partners.app';
import { webhookDispatcherApp } from '../../apps/webhook-dispatcher/src/webhook-dispatcher.app';
import { WebhookReceiver } from '../../apps/partners/test/support/webhook-receiver';
import { type RunningApp, boot } from '../support/boot';
import { type TestDatabase, createTestDatabase, createTestRedis, serviceEnv } from '../support/test-env';
import { StaffSignIn, TEST_ADMIN_TOTP_SECRET, authDevOutbox } from '../support/staff-sign-in';
import { DeferredForwarder, E2E_ADMIN, orchestratorInternalUrl } from './partners-support';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers field by field
export type Json = any;

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: Json;
}

/**
 * The five real services on one cloned database and one Redis namespace, with a verifying webhook
 * receiver on loopback. Every client call goes through the gateway (`/api/...`).
 */
export class PartnersPlatform {
  db!: TestDatabase;
  readonly redis = createTestRedis();
  readonly receiver = new WebhookReceiver();
  private readonly forwarder = new DeferredForwarder();
  auth!: RunningApp;
  ledger!: RunningApp;
  dispatcher!: RunningApp;
  partners!: RunningApp;
  gateway!: RunningApp;
  sql!: Client;

  async start(partnersEnv: Record<string, string> = {}): Promise<this> {
    this.db = await createTestDatabase();
    await this.receiver.start();
    await this.forwarder.start();
    const env = (service: Parameters<typeof serviceEnv>[0], extra: Record<string, string> = {}) =>
      serviceEnv(service, this.db, this.redis, extra);
    // Each app is kept as soon as it is up, so that stop() closes it even if another one fails to boot.
    await Promise.all([
      boot(
        authApp,
        env('auth', {
          BOOTSTRAP_ADMIN_PHONE: E2E_ADMIN.phone,
          BOOTSTRAP_ADMIN_PIN: E2E_ADMIN.pin,
          BOOTSTRAP_ADMIN_TOTP_SECRET: TEST_ADMIN_TOTP_SECRET,
          // tests keep the administrator's token from beforeAll: the longest lifetime
          STAFF_ACCESS_TOKEN_TTL_SEC: '900',
          TRUST_FORWARDED_FOR: 'true',
        }),
        {
          listen: true,
        },
      ).then((a) => (this.auth = a)),
      boot(webhookDispatcherApp, env('webhook-dispatcher', { WEBHOOK_BACKOFF_BASE_MS: '100' }), { listen: true }).then(
        (a) => (this.dispatcher = a),
      ),
    ]);
    // The ledger checks consent proofs against auth's key set.
    this.ledger = await boot(
      ledgerWalletsApp,
      env('ledger-wallets', {
        AUTH_URL: this.auth.url,
        LEDGER_OUTBOX_POLL_MS: '50',
        LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
        LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
      }),
      { listen: true },
    );
    this.partners = await boot(
      partnersApp,
      env('partners', {
        ORCHESTRATOR_URL: this.forwarder.url,
        WEBHOOK_DISPATCHER_URL: this.dispatcher.url,
        PARTNERS_SWEEP_INTERVAL_MS: '0',
        ...partnersEnv,
      }),
      { listen: true },
    );
    this.gateway = await boot(
      orchestratorApp,
      env('orchestrator', {
        AUTH_URL: this.auth.url,
        PARTNERS_URL: this.partners.url,
        LEDGER_URL: this.ledger.url,
        WEBHOOK_DISPATCHER_URL: this.dispatcher.url,
        // Keys are set-up in these journeys: the administrator gets them at once, as one-person
        // configuration allows. Four eyes on keys: apps/orchestrator/test/partner-links.test.ts.
        APPROVALS_ONE_PERSON_ACTIONS: 'PARTNER_KEY_ISSUE,PARTNER_KEY_REVOKE',
      }),
      { listen: true },
    );
    this.forwarder.target = orchestratorInternalUrl(this.gateway);
    this.sql = new Client({ connectionString: this.db.adminUrl });
    await this.sql.connect();
    return this;
  }

  async stop(): Promise<void> {
    await this.sql?.end();
    await Promise.all([this.gateway, this.partners].filter(Boolean).map((a) => a.close()));
    await Promise.all([this.auth, this.ledger, this.dispatcher].filter(Boolean).map((a) => a.close()));
    await this.receiver.stop();
    await this.forwarder.stop();
    await this.redis.flush();
    await this.db?.drop();
  }

  /** Through the gateway: `token` is a user's access token, `key` a partner API key. */
  async call(
    method: string,
    path: string,
    options: { token?: string; key?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    const bearer = options.token ?? options.key;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
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
    return { status: res.status, headers: res.headers, text, body };
  }

  /** Staff sign-ins with their second factor (the administrator's secret known, other staff enrol at their first login). */
  private readonly staff = new StaffSignIn((path, body) => this.call('POST', path, { body }))
    .knowSecret(E2E_ADMIN.phone, TEST_ADMIN_TOTP_SECRET)
    .readSmsCodesWith(authDevOutbox(() => this.auth.url));

  async login(phone: string, pin: string): Promise<string> {
    const res = await this.staff.login(phone, pin);
    if (res.status !== 200) throw new Error(`login ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token as string;
  }
}
