import { Client } from 'pg';
import type { Logger } from '@mm/platform';
import type { CreatedIntegration } from '@mm/contracts';
import { partnersApp } from '../../src/partners.app';
import type { PartnersConfig } from '../../src/partners.config';
import { ledgerWalletsApp } from '../../../ledger-wallets/src/ledger-wallets.app';
import { webhookDispatcherApp } from '../../../webhook-dispatcher/src/webhook-dispatcher.app';
import { type RunningApp, boot } from '../../../../test/support/boot';
import { type TestDatabase, allowedCallerKey, createTestDatabase, createTestRedis, serviceEnv } from '../../../../test/support/test-env';
import { type ConsentSigner, startConsentSigner } from '../../../ledger-wallets/test/consent-signer';
import { DirectoryStub } from './directory-stub';
import { LedgerPayments } from './ledger-payments';
import { WebhookReceiver } from './webhook-receiver';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read response bodies field by field
export type Body = any;

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: Body;
}

export interface PartnersHarness {
  db: TestDatabase;
  redis: { url: string; prefix: string };
  admin: Client;
  directory: DirectoryStub;
  receiver: WebhookReceiver;
  partners: RunningApp<PartnersConfig>;
  dispatcher: RunningApp;
  /** the real ledger, when asked for */
  ledger?: RunningApp;
  payments?: LedgerPayments;
  /** a public call with an API key (or none) */
  call(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string> },
  ): Promise<Answer>;
  /** an internal call with the service key */
  internal(method: string, path: string, body?: unknown): Promise<Answer>;
  /** a new integration whose two endpoints point at the receiver; the receiver knows both secrets */
  integration(name?: string): Promise<CreatedIntegration>;
  close(): Promise<void>;
}

function parse(text: string): Body {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

async function request(url: string, init: RequestInit): Promise<Answer> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: parse(text) };
}

/**
 * One test file's partners service on its own database and Redis namespace, with the real
 * dispatcher, a directory stub (the orchestrator's contract) and a verifying webhook receiver.
 */
export async function startPartners(
  overrides: Record<string, string> = {},
  options: { ledger?: boolean; appRedisUrl?: string; logger?: Logger } = {},
): Promise<PartnersHarness> {
  const db = await createTestDatabase();
  const redis = createTestRedis();
  const directory = await new DirectoryStub().start();
  const receiver = await new WebhookReceiver().start();
  const dispatcher = await boot(webhookDispatcherApp, serviceEnv('webhook-dispatcher', db, redis, { WEBHOOK_BACKOFF_BASE_MS: '50' }), {
    listen: true,
  });
  const appRedis = { url: options.appRedisUrl ?? redis.url, prefix: redis.prefix };
  // The ledger takes a PIN step only with auth's consent proof: a stand-in signer plays auth here.
  const signer: ConsentSigner | undefined = options.ledger ? await startConsentSigner() : undefined;
  const ledger = signer
    ? await boot(
        ledgerWalletsApp,
        serviceEnv('ledger-wallets', db, appRedis, {
          LEDGER_OUTBOX_POLL_MS: '50',
          LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
          LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
          LEDGER_CONSENT_JWKS_URL: signer.jwksUrl,
        }),
        { listen: true },
      )
    : undefined;
  if (ledger) directory.ledgerUrl = ledger.url;
  const partners = await boot(
    partnersApp,
    serviceEnv('partners', db, appRedis, {
      ORCHESTRATOR_URL: directory.url,
      WEBHOOK_DISPATCHER_URL: dispatcher.url,
      PARTNERS_SWEEP_INTERVAL_MS: '0',
      PARTNERS_OUTBOX_POLL_MS: '200',
      PARTNERS_ORDER_EXPIRY_GRACE_SEC: '0',
      // no floor by default (fast tests); the anti-enumeration tests set one
      PARTNERS_CONNECTION_REQUEST_MIN_MS: '0',
      ...overrides,
    }),
    { listen: true, logger: options.logger },
  );
  const admin = new Client({ connectionString: db.adminUrl });
  await admin.connect();

  const harness: PartnersHarness = {
    db,
    redis,
    admin,
    directory,
    receiver,
    partners,
    dispatcher,
    ledger,
    payments: ledger && signer ? new LedgerPayments(ledger.url, (intentId, sub) => signer.sign({ sub, intentId, step: 'PIN' })) : undefined,
    call(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
      const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
      if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
        headers['content-type'] = 'application/json';
      return request(`${partners.url}${path}`, { method, headers, body: payload });
    },
    internal(method, path, body) {
      const headers: Record<string, string> = { 'x-service-key': allowedCallerKey('partners', method, path) };
      if (body !== undefined) headers['content-type'] = 'application/json';
      return request(`${partners.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    },
    async integration(name = 'Caisse Rapide') {
      const res = await harness.internal('POST', '/internal/partners/integrations', {
        name,
        technicalContactEmail: 'tech@pos.example',
        webhookUrl: receiver.url,
        createdBy: 'admin-test',
      });
      if (res.status !== 201) throw new Error(`integration: ${res.status} ${res.text}`);
      const created = res.body as CreatedIntegration;
      receiver.secrets.push(created.webhookSecrets.live, created.webhookSecrets.test);
      return created;
    },
    async close() {
      await admin.end();
      await partners.close();
      await ledger?.close();
      await signer?.close();
      await dispatcher.close();
      await receiver.stop();
      await directory.stop();
      await redis.flush();
      await db.drop();
    },
  };
  return harness;
}

/** An active connection (accepted through the merchant-side internal route) for a new merchant. */
export async function connectedMerchant(
  h: PartnersHarness,
  key: string,
  options: { phone?: string; scopes?: string[]; mode?: 'live' | 'test' } = {},
): Promise<{ merchantId: string; connectionId: string; accounts: Record<string, string> }> {
  const phone = options.phone ?? `+2376${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  const merchant = h.directory.add(phone);
  const req = await h.call('POST', '/partners-public/connections/request', {
    key,
    body: { merchantPhone: phone, scopes: options.scopes ?? ['orders.write', 'orders.read'] },
  });
  if (req.status !== 200) throw new Error(`request: ${req.status} ${req.text}`);
  const connectionId = req.body.connectionId as string;
  const accepted =
    (options.mode ?? 'live') === 'live'
      ? await h.internal('POST', `/internal/partners/merchants/${merchant.merchantId}/connections/${connectionId}/accept`)
      : await h.call('POST', `/partners-public/test-helpers/connections/${connectionId}/activate`, { key });
  if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${accepted.text}`);
  // A test-mode request never looks the phone up: its connection's merchantId is a stand-in, and
  // that is the id test orders are created with.
  const merchantId = (options.mode ?? 'live') === 'live' ? merchant.merchantId : (accepted.body.merchantId as string);
  return { merchantId, connectionId, accounts: merchant.accounts as Record<string, string> };
}
