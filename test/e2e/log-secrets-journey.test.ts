import { randomUUID } from 'node:crypto';
import { InternalHttpClient } from '../../libs/platform/src/internal-http-client';
import { TEST_SERVICE_KEYS, callerKey } from '../support/test-env';
import { type Json, PartnersPlatform } from './partners-platform';
import { E2E_ADMIN } from './partners-support';

/**
 * No secret in any log line of any service, across a whole journey: registration, login and
 * refresh, a cash-out with an OTP and a PIN, a QR payment, a partner integration (API key and
 * webhook secret), the partner's key in use and the webhook delivered.
 *
 * Every app of the platform builds its pino logger through `createLogger`; replacing it here (at
 * debug level, whatever LOG_LEVEL the test env sets) captures the lines of all five services
 * without a harness of our own. The secrets are not listed by hand only: every JSON body and
 * credential header that crosses `fetch` or `InternalHttpClient` in this process (the test's calls
 * and the services' calls to each other, e.g. auth handing a consent proof to the orchestrator) is
 * searched for secret-named fields, so a proof or token the test never sees itself is still checked.
 */
const mockLogLines: string[] = [];
jest.mock('../../libs/platform/src/logger', () => {
  const actual = jest.requireActual('../../libs/platform/src/logger');
  const { Writable } = jest.requireActual('node:stream');
  return {
    ...actual,
    createLogger: (options: { service: string }) =>
      actual.createLogger({
        ...options,
        level: 'debug',
        pretty: false,
        destination: new Writable({
          write(chunk: Buffer, _enc: string, done: () => void) {
            mockLogLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
            done();
          },
        }),
      }),
  };
});

/** Field names whose string value is a secret wherever it appears in a JSON body. */
const SECRET_FIELDS = new Set([
  'pin',
  'oldPin',
  'newPin',
  'otp',
  'otpCode',
  'token',
  'accessToken',
  'refreshToken',
  'resetToken',
  'proof',
  'consentProof',
  'apiKey',
  'key',
  'secret',
  'webhookSecret',
]);
/** Fields under which every string is a secret (the integration's webhook secrets, shown once). */
const SECRET_SUBTREES = new Set(['webhookSecrets']);
/** Named `key` or `token` but public by design: references printed on receipts and QR codes. */
const NOT_SECRET = new Set(['idempotencyKey', 'qrToken', 'keyPrefix', 'prefix']);

const secrets = new Set<string>();

function harvest(value: unknown, secretSubtree = false): void {
  if (Array.isArray(value)) return value.forEach((v) => harvest(v, secretSubtree));
  if (value === null || typeof value !== 'object') return;
  for (const [field, v] of Object.entries(value as Record<string, unknown>)) {
    if (NOT_SECRET.has(field)) continue;
    const inSecret = secretSubtree || SECRET_SUBTREES.has(field);
    if ((inSecret || SECRET_FIELDS.has(field)) && (typeof v === 'string' || typeof v === 'number') && String(v).length >= 4) {
      secrets.add(String(v));
    }
    harvest(v, inSecret);
  }
}

function harvestText(text: string | undefined): void {
  if (!text) return;
  try {
    harvest(JSON.parse(text));
  } catch {
    // not JSON
  }
}

function harvestHeaders(headers: RequestInit['headers']): void {
  const h = new Headers(headers);
  const bearer = /^Bearer (.+)$/i.exec(h.get('authorization') ?? '')?.[1];
  if (bearer) secrets.add(bearer);
  const serviceKey = h.get('x-service-key');
  if (serviceKey) secrets.add(serviceKey);
}

const realFetch = globalThis.fetch;
globalThis.fetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
  harvestHeaders(init?.headers);
  if (typeof init?.body === 'string') harvestText(init.body);
  const res = await realFetch(input, init);
  if ((res.headers.get('content-type') ?? '').includes('json')) harvestText(await res.clone().text());
  return res;
};

// The services call each other through InternalHttpClient (undici, not `fetch`): its requests and
// answers are read the same way, unchanged (this only looks at them).
const realRequest = InternalHttpClient.prototype.request;
InternalHttpClient.prototype.request = async function harvested<T>(
  this: InternalHttpClient,
  method: string,
  path: string,
  req: Parameters<typeof realRequest>[2] = {},
) {
  harvestHeaders(req.headers);
  harvest(req.body);
  const res = await realRequest.call<InternalHttpClient, Parameters<typeof realRequest>, ReturnType<typeof realRequest<T>>>(
    this,
    method,
    path,
    req,
  );
  harvest(res.body);
  return res;
};

/** The forms a secret can take in a log line besides itself. */
function forms(secret: string): string[] {
  return [...new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)])];
}

/** Every string or number leaf of a parsed log line. */
function leaves(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => leaves(v, out));
  else if (value !== null && typeof value === 'object') Object.values(value).forEach((v) => leaves(v, out));
  else if (typeof value === 'string' || typeof value === 'number') out.push(String(value));
  return out;
}

describe('no secret in the logs of a full journey', () => {
  const p = new PartnersPlatform();
  beforeAll(() => p.start(), 60_000);
  afterAll(async () => {
    globalThis.fetch = realFetch;
    InternalHttpClient.prototype.request = realRequest;
    await p.stop();
  });

  async function register(kind: 'customer' | 'merchant' | 'agent', phone: string, pin: string): Promise<Json> {
    const person = { phone, pin, firstName: 'Awa', lastName: 'Test', countryCode: 'CM' };
    const path = kind === 'customer' ? '/api/orchestrator/auth/register' : `/api/orchestrator/auth/register/${kind}`;
    const body = kind === 'merchant' ? { ...person, businessName: 'Boutique Awa', category: 'FOOD_AND_DRINK' } : person;
    const res = await p.call('POST', path, { body });
    if (res.status !== 201) throw new Error(`register ${kind} ${res.status} ${res.text}`);
    const login = await p.call('POST', '/api/auth/login', { body: { phone, pin } });
    if (login.status !== 200) throw new Error(`login ${login.status} ${login.text}`);
    return { ...res.body, phone, pin, token: login.body.token, refreshToken: login.body.refreshToken };
  }

  async function lastOtp(phone: string): Promise<string> {
    const res = await fetch(`${p.auth.url}/auth/dev/sms?phone=${encodeURIComponent(phone)}`);
    const text = ((await res.json()) as { messages: Array<{ text: string }> }).messages[0]?.text ?? '';
    const code = /\b(\d{6})\b/.exec(text)?.[1];
    if (!code) throw new Error(`no OTP sent to ${phone}`);
    return code;
  }

  async function fund(accountId: string, amount: number): Promise<void> {
    const res = await fetch(`${p.ledger.url}/v1/accounts/${accountId}/balance/add`, {
      method: 'PUT',
      headers: { 'x-service-key': callerKey('ops'), 'content-type': 'application/json' },
      body: JSON.stringify({ amount, reason: 'test funding', createdBy: 'test' }),
    });
    if (res.status !== 200) throw new Error(`fund ${res.status} ${await res.text()}`);
  }

  async function step(intentId: string, token: string, name: string, body?: unknown): Promise<Json> {
    const res = await p.call('POST', `/api/v1/intents/${intentId}/${name}`, { token, body });
    if (res.status !== 200) throw new Error(`${name} ${res.status} ${res.text}`);
    return res.body;
  }

  it('captures every service and finds no PIN, OTP, token, proof, key or secret in any line', async () => {
    const pins = { customer: '7394', merchant: '6142', agent: '5817', wrong: '9036' };
    for (const pin of [...Object.values(pins), E2E_ADMIN.pin]) secrets.add(pin);
    for (const key of Object.values(TEST_SERVICE_KEYS)) secrets.add(key);
    for (const app of [p.auth, p.ledger, p.partners, p.dispatcher, p.gateway]) {
      for (const [name, value] of Object.entries(app.config as unknown as Record<string, unknown>)) {
        if (/KEY|SECRET|PASSWORD/.test(name) && typeof value === 'string' && value.length >= 16) secrets.add(value);
      }
    }

    // Registration and sign-in; a refresh and a wrong PIN (a warning line) on the way.
    const customer = await register('customer', '+237690881001', pins.customer);
    const merchant = await register('merchant', '+237690881002', pins.merchant);
    const agent = await register('agent', '+237690881003', pins.agent);
    expect((await p.call('POST', '/api/auth/refresh', { body: { refreshToken: customer.refreshToken } })).status).toBe(200);
    expect((await p.call('POST', '/api/auth/login', { body: { phone: customer.phone, pin: pins.wrong } })).status).toBe(401);
    await fund(customer.accounts.XAF, 100_000);

    // Cash-out at the agent: OTP sent to the customer, read out, then the agent's PIN.
    const cashOut = await p.call('POST', '/api/v1/intents', {
      token: agent.token,
      body: { type: 'CASH_OUT', amount: 10_000, clientPhone: customer.phone, idempotencyKey: randomUUID() },
    });
    expect(cashOut.status).toBe(201);
    await step(cashOut.body.intentId, agent.token, 'send-otp');
    const otp = await lastOtp(customer.phone);
    secrets.add(otp);
    await step(cashOut.body.intentId, agent.token, 'verify-otp', { otpCode: otp });
    await step(cashOut.body.intentId, agent.token, 'verify-pin', { pin: agent.pin });
    await step(cashOut.body.intentId, agent.token, 'confirm');

    // Partner integration: key and webhook secret shown once; connection; order paid by QR.
    const admin = await p.login(E2E_ADMIN.phone, E2E_ADMIN.pin);
    const created = await p.call('POST', '/api/admin/partners/integrations', {
      token: admin,
      body: { name: 'Caisse Rapide', technicalContactEmail: 'tech@pos.example', webhookUrl: p.receiver.url },
    });
    expect(created.status).toBe(201);
    const key: string = created.body.apiKeys.live.key;
    const webhookSecret: string = created.body.webhookSecrets.live;
    p.receiver.secrets.push(webhookSecret);
    const request = await p.call('POST', '/api/partners-public/connections/request', {
      key,
      body: { merchantPhone: merchant.phone, scopes: ['orders.write', 'orders.read'], requestedReason: 'Payments at till 1' },
    });
    expect(request.status).toBe(200);
    const accepted = await p.call('POST', `/api/merchant/connections/${request.body.connectionId}/accept`, { token: merchant.token });
    expect(accepted.body.status).toBe('active');
    const order = await p.call('POST', '/api/partners-public/orders', {
      key,
      body: { merchantId: merchant.merchantId, amount: 4500, externalReference: 'TILL1-000777' },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(order.status).toBe(201);
    // A wrong key must not be echoed either (a near-miss of the real one).
    const forged = `${key.slice(0, -4)}XXXX`;
    secrets.add(forged);
    expect((await p.call('GET', '/api/partners-public/events', { key: forged })).status).toBe(401);
    const intent = await p.call('POST', '/api/v1/intents', {
      token: customer.token,
      body: { type: 'TRANSFER', amount: 4500, qrToken: order.body.qrToken, idempotencyKey: randomUUID() },
    });
    expect(intent.status).toBe(201);
    // A wrong PIN first (a warning at auth and the orchestrator), then the right one.
    const wrongPin = await p.call('POST', `/api/v1/intents/${intent.body.intentId}/verify-pin`, {
      token: customer.token,
      body: { pin: pins.wrong },
    });
    expect(wrongPin.body.code).toBe('INVALID_PIN');
    await step(intent.body.intentId, customer.token, 'verify-pin', { pin: customer.pin });
    await step(intent.body.intentId, customer.token, 'confirm');
    const hook = await p.receiver.waitFor((w) => w.body.event === 'order.paid' && w.body.data.orderId === order.body.orderId);
    expect(hook.verified).toBe(true);
    expect((await p.call('GET', `/api/partners-public/orders/${order.body.orderId}`, { key })).body.status).toBe('paid');
    await p.call('POST', '/api/auth/logout', { token: customer.token });

    // The secrets were gathered: the ones the test used, and those only the services exchanged.
    for (const s of [key, webhookSecret, otp, customer.token, customer.refreshToken, admin]) expect(secrets.has(s)).toBe(true);
    const jwtShaped = [...secrets].filter((s) => /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/.test(s));
    expect(jwtShaped.length).toBeGreaterThan(6); // access, refresh/reset tokens and consent proofs

    // The capture works: every service wrote request lines during the journey.
    const lines = mockLogLines.map((l) => JSON.parse(l) as Json);
    for (const service of ['auth', 'ledger-wallets', 'partners', 'webhook-dispatcher', 'orchestrator']) {
      expect(lines.filter((l) => l.service === service).length).toBeGreaterThan(2);
    }
    expect(lines.filter((l) => l.msg === 'request').length).toBeGreaterThan(40);

    const all = mockLogLines.join('\n');
    const leaked: string[] = [];
    for (const secret of secrets) {
      if (secret.length >= 12) {
        for (const form of forms(secret)) if (all.includes(form)) leaked.push(form);
      }
    }
    // PINs and codes are short (they could occur by chance inside an id): no log value may be one,
    // and none may stand alone in a message or URL.
    const values = new Set(lines.flatMap((l) => leaves(l)));
    for (const secret of [...secrets].filter((s) => s.length < 12)) {
      if (values.has(secret)) leaked.push(secret);
      if (new RegExp(`(?<![\\w.:-])${secret}(?![\\w.:-])`).test(all)) leaked.push(secret);
    }
    // Any JWT at all in a line is a token or a proof, whoever it belonged to.
    const jwt = /eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{8,}/.exec(all);
    if (jwt) leaked.push(jwt[0]);
    const where = [...new Set(leaked)].map((s) => `${s} in: ${mockLogLines.find((l) => l.includes(s)) ?? '?'}`);
    expect(where).toEqual([]);
  }, 30_000);
});
