import { randomUUID } from 'node:crypto';
import { type Client, Pool } from 'pg';
import { authApp } from '../../apps/auth/src/auth.app';
import { ledgerWalletsApp } from '../../apps/ledger-wallets/src/ledger-wallets.app';
import { type Invariants, checkInvariants } from '../../apps/ledger-wallets/test/invariants';
import { orchestratorApp } from '../../apps/orchestrator/src/orchestrator.app';
import { partnersApp } from '../../apps/partners/src/partners.app';
import { webhookDispatcherApp } from '../../apps/webhook-dispatcher/src/webhook-dispatcher.app';
import { type RunningApp, boot } from '../support/boot';
import { StaffSignIn, TEST_ADMIN_TOTP_SECRET, authDevOutbox } from '../support/staff-sign-in';
import { type TestDatabase, allowedCallerKey, createTestDatabase, createTestRedis, serviceEnv } from '../support/test-env';
import { DeferredForwarder, orchestratorInternalUrl } from './partners-support';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers field by field
export type Json = any;

export interface Answer {
  status: number;
  headers: Headers;
  body: Json;
}

export type Role = 'CUSTOMER' | 'MERCHANT' | 'AGENT' | 'MASTER_AGENT' | 'SUPPORT' | 'COMPLIANCE';

/** A registered user of the platform, signed in. */
export interface TestUser {
  role: Role;
  userId: string;
  customerId: string;
  phone: string;
  pin: string;
  token: string;
  /** main account (agents: float) per currency */
  accounts: Record<string, string>;
  /** agents: commission account per currency */
  commission: Record<string, string>;
  agentId?: string;
  agentCode?: string;
  merchantId?: string;
}

export interface PlatformOptions {
  /** boot partners too (merchant QR payments) */
  partners?: boolean;
  orchestratorEnv?: Record<string, string>;
  ledgerEnv?: Record<string, string>;
  /** e.g. a login limit per client address out of the way of a file that signs in many people */
  authEnv?: Record<string, string>;
}

import { newPhone } from '../support/phones';

export { newPhone };

/** The bootstrap administrator of every test platform. */
const ADMIN = { phone: '+237699000001', pin: '4826' };

/**
 * The real services of the money flow on one cloned database and Redis namespace: auth, the
 * ledger (which checks auth's consent proofs through its JWKS), the orchestrator as the gateway,
 * and partners when asked. Every client call goes through the gateway over real HTTP.
 */
export class MoneyPlatform {
  db!: TestDatabase;
  readonly redis = createTestRedis();
  auth!: RunningApp;
  ledger!: RunningApp;
  partners?: RunningApp;
  dispatcher?: RunningApp;
  gateway!: RunningApp;
  /** superuser pool on the test database */
  sql!: Pool;
  private forwarder?: DeferredForwarder;
  private orchestratorEnv: Record<string, string> = {};
  private readonly extraGateways: RunningApp[] = [];

  /**
   * An orchestrator on the platform's database (the usual gateway, or a second one, e.g. pointed
   * at a ledger that is down or answers badly: `LEDGER_URL` in `env`).
   */
  async bootGateway(env: Record<string, string> = {}): Promise<RunningApp> {
    const app = await boot(
      orchestratorApp,
      serviceEnv('orchestrator', this.db, this.redis, {
        AUTH_URL: this.auth.url,
        LEDGER_URL: this.ledger.url,
        PARTNERS_URL: this.partners?.url ?? 'http://127.0.0.1:9',
        ...(this.dispatcher ? { WEBHOOK_DISPATCHER_URL: this.dispatcher.url } : {}),
        DB_POOL_SIZE: '8',
        PAYMENTS_FAULT_INJECTION: 'true',
        SMS_RELAY_POLL_MS: '0',
        PAYMENTS_RECONCILE_INTERVAL_MS: '0',
        // Off unless a test asks: the periodic jobs elect one runner per database, so a gateway
        // sweeping every minute would keep the lease from a second gateway booted to sweep fast.
        APPROVAL_SWEEP_INTERVAL_MS: '0',
        ...this.orchestratorEnv,
        ...env,
      }),
      { listen: true },
    );
    if (this.gateway) this.extraGateways.push(app);
    return app;
  }

  async start(options: PlatformOptions = {}): Promise<this> {
    this.db = await createTestDatabase();
    const env = (service: Parameters<typeof serviceEnv>[0], extra: Record<string, string> = {}) =>
      serviceEnv(service, this.db, this.redis, extra);
    this.auth = await boot(
      authApp,
      env('auth', {
        OTP_RESEND_COOLDOWN_SEC: '0',
        TRUST_FORWARDED_FOR: 'true',
        BOOTSTRAP_ADMIN_PHONE: ADMIN.phone,
        BOOTSTRAP_ADMIN_PIN: ADMIN.pin,
        BOOTSTRAP_ADMIN_TOTP_SECRET: TEST_ADMIN_TOTP_SECRET,
        // The administrator's token is kept for the whole file (adminToken): the longest lifetime.
        STAFF_ACCESS_TOKEN_TTL_SEC: '900',
        ...options.authEnv,
      }),
      { listen: true },
    );
    const ledgerBoot = boot(
      ledgerWalletsApp,
      env('ledger-wallets', {
        AUTH_URL: this.auth.url,
        DB_POOL_SIZE: '8',
        LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
        LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
        LEDGER_OUTBOX_POLL_MS: options.partners ? '50' : '0',
        ...options.ledgerEnv,
      }),
      { listen: true },
    );
    if (options.partners) {
      this.forwarder = await new DeferredForwarder().start();
      [this.ledger, this.dispatcher] = await Promise.all([
        ledgerBoot,
        boot(webhookDispatcherApp, env('webhook-dispatcher'), { listen: true }),
      ]);
      this.partners = await boot(
        partnersApp,
        env('partners', {
          ORCHESTRATOR_URL: this.forwarder.url,
          WEBHOOK_DISPATCHER_URL: this.dispatcher.url,
          PARTNERS_SWEEP_INTERVAL_MS: '0',
        }),
        { listen: true },
      );
    } else {
      this.ledger = await ledgerBoot;
    }
    this.orchestratorEnv = options.orchestratorEnv ?? {};
    this.gateway = await this.bootGateway();
    if (this.forwarder) this.forwarder.target = orchestratorInternalUrl(this.gateway);
    this.sql = new Pool({ connectionString: this.db.adminUrl, max: 4 });
    return this;
  }

  async stop(): Promise<void> {
    await this.sql?.end();
    await Promise.all([this.gateway, ...this.extraGateways].filter(Boolean).map((a) => a.close()));
    await this.partners?.close();
    await Promise.all([this.auth, this.ledger, this.dispatcher].filter(Boolean).map((a) => a!.close()));
    await this.forwarder?.stop();
    await this.redis.flush();
    await this.db?.drop();
  }

  /** Through the gateway's public listener (or another orchestrator's, `via`). */
  async call(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; headers?: Record<string, string>; via?: RunningApp } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${(options.via ?? this.gateway).url}${path}`, {
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
    return { status: res.status, headers: res.headers, body };
  }

  /** A ledger internal call with the key of a caller its table allows (ops: funding; orchestrator: balances). */
  async ledgerCall(method: string, path: string, body?: unknown): Promise<Answer> {
    const res = await fetch(`${this.ledger.url}${path}`, {
      method,
      headers: {
        'x-service-key': allowedCallerKey('ledger-wallets', method, path),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  /**
   * A user registered through the real registration workflow (customers, merchants, agents;
   * master agents are agents promoted by the administrator; staff are created by it), signed in.
   * `kycTier` other than the default TIER_1 is set in the customer module's table (no route yet).
   */
  async register(
    role: Role,
    options: { kycTier?: string; firstName?: string; masterAgentCode?: string; pin?: string } = {},
  ): Promise<TestUser> {
    const phone = newPhone();
    const pin = options.pin ?? '2580';
    const person = {
      phone,
      pin,
      firstName: options.firstName ?? role.charAt(0) + role.slice(1).toLowerCase(),
      lastName: 'Test',
      countryCode: 'CM',
    };
    let res: Answer;
    if (role === 'SUPPORT' || role === 'COMPLIANCE') {
      res = await this.call('POST', '/api/orchestrator/admin/staff', { token: await this.adminToken(), body: { ...person, role } });
    } else if (role === 'MERCHANT') {
      res = await this.call('POST', '/api/orchestrator/auth/register/merchant', {
        body: { ...person, businessName: `Boutique ${phone.slice(-4)}`, category: 'FOOD_AND_DRINK' },
      });
    } else if (role === 'AGENT' || role === 'MASTER_AGENT') {
      const body = options.masterAgentCode ? { ...person, masterAgentCode: options.masterAgentCode } : person;
      res = await this.call('POST', '/api/orchestrator/auth/register/agent', { body });
    } else {
      res = await this.call('POST', '/api/orchestrator/auth/register', { body: person });
    }
    if (res.status !== 201) throw new Error(`register ${role} ${res.status} ${JSON.stringify(res.body)}`);
    if (role === 'MASTER_AGENT') {
      const promoted = await this.call('PUT', `/api/orchestrator/admin/users/${res.body.userId}/role`, {
        token: await this.adminToken(),
        body: { role: 'MASTER_AGENT' },
      });
      if (promoted.status !== 200) throw new Error(`promote ${promoted.status} ${JSON.stringify(promoted.body)}`);
    }
    if (options.kycTier)
      await this.sql.query(`UPDATE orchestrator.customers SET kyc_tier = $2 WHERE id = $1`, [res.body.customerId, options.kycTier]);
    return {
      role,
      userId: res.body.userId,
      customerId: res.body.customerId ?? '',
      phone,
      pin,
      token: await this.login(phone, pin),
      accounts: res.body.accounts ?? {},
      commission: res.body.commissionAccounts ?? {},
      agentId: res.body.agentId,
      agentCode: res.body.agentCode,
      merchantId: res.body.merchantId,
    };
  }

  private adminTokenCache?: Promise<string>;

  /** The bootstrap administrator's access token. */
  adminToken(): Promise<string> {
    this.adminTokenCache ??= this.login(ADMIN.phone, ADMIN.pin);
    return this.adminTokenCache;
  }

  /** Staff sign-ins with their second factor (the administrator's secret known, other staff enrol at their first login). */
  private readonly staff = new StaffSignIn((path, body) => this.call('POST', path, { body }))
    .knowSecret(ADMIN.phone, TEST_ADMIN_TOTP_SECRET)
    .readSmsCodesWith(authDevOutbox(() => this.auth.url));

  async login(phone: string, pin: string): Promise<string> {
    const res = await this.staff.login(phone, pin);
    if (res.status !== 200) throw new Error(`login ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token as string;
  }

  /** Money into an account from outside the intent flow (a signed adjustment against suspense). */
  async fund(accountId: string, amount: number): Promise<void> {
    const res = await this.ledgerCall('PUT', `/v1/accounts/${accountId}/balance/add`, {
      amount,
      reason: 'test funding',
      createdBy: 'test',
    });
    if (res.status !== 200) throw new Error(`fund ${res.status} ${JSON.stringify(res.body)}`);
  }

  async balance(accountId: string): Promise<{ balance: number; availableBalance: number; frozenBalance: number }> {
    const res = await this.ledgerCall('GET', `/v1/internal/accounts/${accountId}`);
    return { balance: res.body.balance, availableBalance: res.body.availableBalance, frozenBalance: res.body.frozenBalance };
  }

  /** FEE_COLLECTION, TREASURY, … account id of a currency. */
  async technical(type: 'fee_collection' | 'treasury', currency = 'XAF'): Promise<string> {
    const res = await this.ledgerCall('GET', `/v1/internal/technical-accounts?currency=${currency}`);
    return (res.body as Array<{ id: string; accountType: string }>).find((a) => a.accountType === type)!.id;
  }

  invariants(): Promise<Invariants> {
    return checkInvariants(this.sql as unknown as Client);
  }

  /** The last code auth's development SMS driver "sent" to this phone. */
  async lastOtp(phone: string): Promise<string> {
    const res = await fetch(`${this.auth.url}/auth/dev/sms?phone=${encodeURIComponent(phone)}`);
    const text = ((await res.json()) as { messages: Array<{ text: string }> }).messages[0]?.text ?? '';
    const code = /\b(\d{6})\b/.exec(text)?.[1];
    if (!code) throw new Error(`no OTP sent to ${phone}`);
    return code;
  }
}

/** Create → verify-pin → confirm: the whole happy path of one intent; returns each answer. */
export async function pay(
  p: MoneyPlatform,
  initiator: TestUser,
  body: Record<string, unknown>,
): Promise<{ created: Answer; pin?: Answer; confirmed?: Answer }> {
  const created = await p.call('POST', '/api/v1/intents', { token: initiator.token, body: { idempotencyKey: randomUUID(), ...body } });
  if (created.status !== 201) return { created };
  const id = created.body.intentId as string;
  const pin = await p.call('POST', `/api/v1/intents/${id}/verify-pin`, { token: initiator.token, body: { pin: initiator.pin } });
  if (pin.status !== 200) return { created, pin };
  const confirmed = await p.call('POST', `/api/v1/intents/${id}/confirm`, { token: initiator.token });
  return { created, pin, confirmed };
}

/**
 * `pay` for a test that needs the payment done: the confirm's answer, or an error naming the step
 * that failed with its status and body (a bare `undefined` told CI nothing about which step broke).
 */
export async function payOk(p: MoneyPlatform, initiator: TestUser, body: Record<string, unknown>): Promise<Answer> {
  const steps = await pay(p, initiator, body);
  const [step, answer] = steps.confirmed
    ? (['confirm', steps.confirmed] as const)
    : steps.pin
      ? (['verify-pin', steps.pin] as const)
      : (['create', steps.created] as const);
  if (step === 'confirm' && answer.status === 200) return answer;
  throw new Error(`${body.type} ${body.amount}: ${step} answered ${answer.status} ${JSON.stringify(answer.body)}`);
}
