/**
 * The population the soak drives, set up the way an operator and the apps would: through the gateway
 * (registration workflows, the admin's partner integration, each merchant accepting the partner's
 * connection). The one exception is where money enters: the agents' floats are funded by the ledger's
 * test adjustment; customers then receive their first money by cash-in, as in life.
 */
import { randomUUID } from 'node:crypto';
import { BenchClient, type HttpResult } from '../ledger/http-client';
import { must, reviseConfig } from '../lib/admin-config';
import { StaffSignIn } from '../../tools/staff-sign-in';
import { BOOTSTRAP_ADMIN } from './env';

export interface User {
  phone: string;
  pin: string;
  /** replaced by each login of the mix */
  token: string;
  /** main account (agents: float) per currency */
  accounts: Record<string, string>;
  merchantId?: string;
}

export interface Population {
  customers: User[];
  agents: User[];
  merchants: User[];
  /** the partner's live API key (one integration, connected to every merchant) */
  partnerKey: string;
  integrationId: string;
  /** the partner's webhook signing secret, for the receiver */
  webhookSecret: string;
}

export const PIN = '2580';

/** Runs `fn` over `items` with at most `limit` at a time (registration hashes a PIN: keep it gentle). */
async function inBatches<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i], i);
    }),
  );
  return out;
}

async function login(gateway: BenchClient, phone: string, pin: string): Promise<string> {
  return must(await gateway.call('POST', '/api/auth/login', { phone, pin }), 200, `login ${phone}`).body.token as string;
}

/**
 * Per-person throttles sized for a real population (risk velocity, daily and monthly limits, agent
 * daily ceilings) would stop a bench in which a few dozen people make thousands of payments: they
 * are widened through the admin configuration routes, as compliance would. Amount bounds and
 * single-operation limits are kept.
 */
export async function widenPerPersonThrottles(gateway: BenchClient, adminToken: string): Promise<void> {
  await reviseConfig<{ velocity: Record<string, number> }>(gateway, adminToken, 'risk', 'soak benchmark', (document) => {
    document.velocity = {
      ...document.velocity,
      windowSeconds: 60,
      maxPerCustomer: 10_000,
      maxPerAgent: 10_000,
      maxPerMerchant: 10_000,
      maxPerDevice: 10_000,
    };
  });
  await reviseConfig<{
    tiers: Array<{ dailyMax: number; monthlyMax: number; balanceMax: number }>;
    agents: Array<{ dailyMax: number }>;
  }>(gateway, adminToken, 'limits', 'soak benchmark', (document) => {
    for (const tier of document.tiers) {
      tier.dailyMax *= 1_000;
      tier.monthlyMax *= 1_000;
      tier.balanceMax *= 1_000;
    }
    for (const agent of document.agents) agent.dailyMax *= 1_000;
  });
}

export async function createPopulation(
  gateway: BenchClient,
  ledger: BenchClient,
  sizes: { customers: number; agents: number; merchants: number },
  partner: { receiverUrl: string; onWebhookSecret: (secret: string) => void },
  log: (message: string) => void,
): Promise<Population> {
  // The administrator signs in with its second factor (docs/auth-limits.md "Staff sign-in").
  const adminSignIn = new StaffSignIn((path, body) => gateway.call('POST', path, body)).knowSecret(
    BOOTSTRAP_ADMIN.phone,
    BOOTSTRAP_ADMIN.totpSecret,
  );
  const adminToken = must(await adminSignIn.login(BOOTSTRAP_ADMIN.phone, BOOTSTRAP_ADMIN.pin), 200, 'admin login').body.token as string;
  await widenPerPersonThrottles(gateway, adminToken);

  const register = async (kind: 'customer' | 'agent' | 'merchant', i: number): Promise<User> => {
    const prefix = { customer: 71, agent: 72, merchant: 73 }[kind];
    const phone = `+2376${prefix}${String(i).padStart(6, '0')}`;
    const person = { phone, pin: PIN, firstName: `Soak${i}`, lastName: kind, countryCode: 'CM' };
    const path = kind === 'customer' ? '/api/orchestrator/auth/register' : `/api/orchestrator/auth/register/${kind}`;
    const body = kind === 'merchant' ? { ...person, businessName: `Boutique ${i}`, category: 'FOOD_AND_DRINK' } : person;
    const res = must(await gateway.call('POST', path, body), 201, `register ${kind}`);
    return {
      phone,
      pin: PIN,
      token: await login(gateway, phone, PIN),
      accounts: (res.body.accounts ?? {}) as Record<string, string>,
      merchantId: res.body.merchantId as string | undefined,
    };
  };
  log(`registering ${sizes.customers} customers, ${sizes.agents} agents, ${sizes.merchants} merchants`);
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);
  const customers = await inBatches(range(sizes.customers), 4, (i) => register('customer', i));
  const agents = await inBatches(range(sizes.agents), 4, (i) => register('agent', i));
  const merchants = await inBatches(range(sizes.merchants), 4, (i) => register('merchant', i));

  for (const agent of agents) {
    must(
      await ledger.call('PUT', `/v1/accounts/${agent.accounts.XAF}/balance/add`, {
        amount: 500_000_000,
        reason: 'soak benchmark float',
        createdBy: 'bench',
      }),
      200,
      'fund agent float',
    );
  }

  // The partner: one integration whose endpoint is the bench's receiver, connected to every merchant.
  const created = must(
    await gateway.call(
      'POST',
      '/api/admin/partners/integrations',
      { name: 'Soak POS', technicalContactEmail: 'soak@pos.example', webhookUrl: partner.receiverUrl },
      { authorization: `Bearer ${adminToken}` },
    ),
    201,
    'partner integration',
  ).body as unknown as { integration: { id: string }; apiKeys: { live: { key: string } }; webhookSecrets: { live: string } };
  const partnerKey = created.apiKeys.live.key;
  // Before the first event (connection.activated) can reach the receiver.
  partner.onWebhookSecret(created.webhookSecrets.live);
  for (const merchant of merchants) {
    const requested = must(
      await gateway.call(
        'POST',
        '/api/partners-public/connections/request',
        { merchantPhone: merchant.phone, scopes: ['orders.write', 'orders.read'] },
        { authorization: `Bearer ${partnerKey}` },
      ),
      200,
      'connection request',
    );
    must(
      await gateway.call('POST', `/api/merchant/connections/${String(requested.body.connectionId)}/accept`, undefined, {
        authorization: `Bearer ${merchant.token}`,
      }),
      200,
      'connection accept',
    );
  }

  // Every customer's first money: a cash-in at an agent.
  await inBatches(customers, 4, async (customer, i) => {
    const code = await payIntent(gateway, agents[i % agents.length], {
      type: 'CASH_IN',
      amount: 200_000,
      clientPhone: customer.phone,
    });
    if (code) throw new Error(`initial cash-in: ${code}`);
  });
  return {
    customers,
    agents,
    merchants,
    partnerKey,
    integrationId: created.integration.id,
    webhookSecret: created.webhookSecrets.live,
  };
}

/**
 * create → verify-pin → confirm as the app does it; `step` (when given) times each call under the
 * operation's name. Returns nothing on success, or `<step>:<stable code or status>`.
 */
export async function payIntent(
  gateway: BenchClient,
  initiator: User,
  body: Record<string, unknown>,
  step?: (name: 'create' | 'verify-pin' | 'confirm', call: () => Promise<HttpResult>) => Promise<HttpResult>,
): Promise<string | void> {
  const timed = step ?? ((_name, call) => call());
  const h = { authorization: `Bearer ${initiator.token}` };
  const created = await timed('create', () => gateway.call('POST', '/api/v1/intents', { idempotencyKey: randomUUID(), ...body }, h));
  if (created.status !== 201) return `create:${String(created.body.code ?? created.status)}`;
  const id = created.body.intentId as string;
  const pin = await timed('verify-pin', () => gateway.call('POST', `/api/v1/intents/${id}/verify-pin`, { pin: initiator.pin }, h));
  if (pin.status !== 200) return `verify-pin:${String(pin.body.code ?? pin.status)}`;
  const done = await timed('confirm', () => gateway.call('POST', `/api/v1/intents/${id}/confirm`, undefined, h));
  if (done.status !== 200) return `confirm:${String(done.body.code ?? done.status)}`;
}
