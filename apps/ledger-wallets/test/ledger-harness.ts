import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { ConsentStep } from '@mm/contracts';
import { ledgerWalletsApp } from '../src/ledger-wallets.app';
import type { LedgerWalletsConfig } from '../src/ledger-wallets.config';
import { type RunningApp, boot } from '../../../test/support/boot';
import { type ConsentSigner, type ProofOptions, startConsentSigner } from './consent-signer';
import { type TestDatabase, allowedCallerKey, createTestDatabase, createTestRedis, serviceEnv } from '../../../test/support/test-env';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert response fields one by one
export type ResponseBody = any;

export interface Harness {
  db: TestDatabase;
  app: RunningApp<LedgerWalletsConfig>;
  admin: Client;
  /** the stand-in for auth: signs consent proofs with a key generated for this file, served as a JWKS on loopback */
  consent: ConsentSigner;
  /**
   * Real HTTP to the listening app. A transition to OTP_VERIFIED / PIN_VERIFIED whose body has no
   * `consentProof` key gets a valid proof for the user the intent expects (what the orchestrator
   * does after auth checked the code or PIN); a body that names the key, even as undefined, is sent
   * as it is (that is how a test sends no proof at all).
   */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: ResponseBody; headers: Headers }>;
  close(): Promise<void>;
}

const TRANSITION_PATH = /^\/v1\/internal\/intents\/([^/]+)\/transition$/;

export interface LedgerOptions {
  /**
   * The URL the app reaches PostgreSQL through, given the direct one (e.g. a fault-injecting proxy's);
   * the admin client and the database's lifetime stay direct.
   */
  databaseUrl?(direct: string): string | Promise<string>;
}

/** One test file's ledger: its own database copy, Redis namespace, app listening on loopback. */
export async function startLedger(overrides: Record<string, string | undefined> = {}, options: LedgerOptions = {}): Promise<Harness> {
  const db = await createTestDatabase();
  const redis = createTestRedis();
  const consent = await startConsentSigner();
  const databaseUrl = options.databaseUrl ? await options.databaseUrl(db.urlFor('ledger-wallets')) : undefined;
  const app = await boot(
    ledgerWalletsApp,
    serviceEnv('ledger-wallets', db, redis, {
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      LEDGER_CONSENT_JWKS_URL: consent.jwksUrl,
      DB_POOL_SIZE: '6',
      LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
      LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
      LEDGER_OUTBOX_POLL_MS: '0',
      ...(process.env.LEDGER_TEST_LOG ? { LOG_LEVEL: process.env.LEDGER_TEST_LOG } : {}),
      ...overrides,
    }),
    { listen: true },
  );
  const admin = new Client({ connectionString: db.adminUrl });
  await admin.connect();
  const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${app.url}${path}`, {
      method,
      // the caller the ledger's table allows on this route (orchestrator, or ops for operators' routes)
      headers: {
        'x-service-key': allowedCallerKey('ledger-wallets', method, path),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };
  /** The proof auth would have issued for this move, when the move needs one and the body did not choose. */
  const withProof = async (path: string, body: unknown): Promise<unknown> => {
    const id = TRANSITION_PATH.exec(path)?.[1];
    const b = body as Record<string, unknown> | undefined;
    if (!id || !b || 'consentProof' in b || (b.toStatus !== 'PIN_VERIFIED' && b.toStatus !== 'OTP_VERIFIED')) return body;
    const intent = await send('GET', `/v1/internal/intents/${id}`);
    if (intent.status !== 200) return body; // let the transition answer for the unknown intent itself
    const step: ConsentStep = b.toStatus === 'PIN_VERIFIED' ? 'PIN' : 'OTP';
    const sub = step === 'PIN' ? intent.body.initiatedBy : (intent.body.otpUserId ?? 'nobody');
    return { ...b, consentProof: await consent.sign({ sub, intentId: id, step }) };
  };
  return {
    db,
    app,
    admin,
    consent,
    async call(method, path, body, headers = {}) {
      return send(method, path, method === 'POST' ? await withProof(path, body) : body, headers);
    },
    async close() {
      await admin.end();
      await app.close();
      await consent.close();
      await redis.flush();
      await db.drop();
    },
  };
}

/** The PIN proof the intent's initiator would get from auth's check-pin. */
export async function pinProof(h: Harness, intentId: string, options?: ProofOptions): Promise<string> {
  const intent = await h.call('GET', `/v1/internal/intents/${intentId}`);
  return h.consent.sign({ sub: intent.body.initiatedBy, intentId, step: 'PIN' }, options);
}

/** A USER wallet with its XAF account funded through the test-funding `add` (a signed adjustment from suspense). */
export async function fundedAccount(h: Harness, amount: number, currency = 'XAF', ownerType = 'USER'): Promise<string> {
  const res = await h.call('POST', '/v1/internal/wallets', { ownerType, ownerId: randomUUID(), currencies: [currency] });
  if (res.status !== 201) throw new Error(`wallet: ${res.status} ${JSON.stringify(res.body)}`);
  const account = res.body.accounts.find((a: { accountType: string }) => !a.accountType.includes('commission'));
  if (amount > 0) {
    const add = await h.call('PUT', `/v1/accounts/${account.id}/balance/add`, { amount, reason: 'test funding', createdBy: 'test' });
    if (add.status !== 200) throw new Error(`fund: ${add.status} ${JSON.stringify(add.body)}`);
  }
  return account.id;
}

export function intentBody(source: string, destination: string, amount: number, extra: Record<string, unknown> = {}) {
  return {
    idempotencyKey: randomUUID(),
    type: 'TRANSFER',
    sourceAccountId: source,
    destinationAccountId: destination,
    amount,
    currency: 'XAF',
    actor: { id: 'user-1', ip: '10.0.0.1', userAgent: 'jest' },
    // An OTP-branch intent names the customer its code goes to (required with requiresOtp).
    ...(extra.requiresOtp ? { otpUserId: 'otp-user-1' } : {}),
    ...extra,
  };
}

export function contextFor(source: string, destination: string, amount: number, extra: Record<string, unknown> = {}) {
  return { sourceAccountId: source, destinationAccountId: destination, amount, currency: 'XAF', metadata: { typeCode: 'P2P' }, ...extra };
}

/**
 * A wallet and its accounts written straight in SQL (no funding, no service rules: any type the
 * CHECK allows), for tests that need accounts the API would not create. Returns each account's id
 * by the name given with it.
 */
export async function insertWallet<N extends string>(
  h: Harness,
  ownerType: string,
  accounts: [name: N, type: string, currency: string][],
): Promise<Record<N, string>> {
  const w = await h.admin.query<{ id: string }>(
    `INSERT INTO ledger.wallets (owner_type, owner_id, holder_name) VALUES ($1, $2, $2) RETURNING id`,
    [ownerType, `sql-${randomUUID()}`],
  );
  const ids = {} as Record<N, string>;
  for (const [name, type, currency] of accounts) {
    const a = await h.admin.query<{ id: string }>(
      `INSERT INTO ledger.accounts (wallet_id, account_type, currency, holder) VALUES ($1, $2, $3, $4) RETURNING id`,
      [w.rows[0].id, type, currency, name],
    );
    ids[name] = a.rows[0].id;
  }
  return ids;
}

/** An intent created and moved to PIN_VERIFIED, ready to confirm; its id. Any other answer fails the test. */
export async function pinVerifiedIntent(h: Harness, source: string, destination: string, amount: number): Promise<string> {
  const created = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, amount));
  if (created.status !== 201) throw new Error(`intent: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.intentId as string;
  const pin = await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } });
  if (pin.status !== 200) throw new Error(`PIN step: ${pin.status} ${JSON.stringify(pin.body)}`);
  return id;
}

/** Creates an intent, verifies the PIN and confirms it: the whole happy path. Returns the final response. */
export async function transfer(h: Harness, source: string, destination: string, amount: number, fee = 0) {
  const created = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, amount, { fee }));
  if (created.status !== 201) return created;
  const id = created.body.intentId;
  const pin = await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } });
  if (pin.status !== 200) return pin;
  return h.call('POST', `/v1/internal/intents/${id}/transition`, {
    toStatus: 'SUCCEEDED',
    actor: { id: 'user-1' },
    executionContext: contextFor(source, destination, amount, fee ? { fee: { amount: fee } } : {}),
  });
}

export { type ConsentSigner, type ProofClaims, type ProofOptions, startConsentSigner } from './consent-signer';
export { type Invariants as InvariantReport, checkInvariants as invariants } from './invariants';

export async function balanceOf(h: Harness, id: string): Promise<{ balance: number; availableBalance: number; frozenBalance: number }> {
  const res = await h.call('GET', `/v1/internal/accounts/${id}`);
  return res.body;
}
