import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from 'pg';
import { internalListenerOf } from '@mm/platform';
import type { RunningApp } from '../support/boot';
import { callerKey } from '../support/test-env';

/**
 * Helpers of the partner-API tests that run the real orchestrator (test/e2e/partners-*.test.ts,
 * apps/orchestrator/test/partner-*.test.ts).
 */

/**
 * An HTTP forwarder whose target is set later: partners must be booted with the orchestrator's
 * address (the merchant directory) before the orchestrator, which needs partners' address, exists.
 */
export class DeferredForwarder {
  private server?: http.Server;
  target = '';
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      if (!this.target) return void res.writeHead(503).end();
      const target = new URL(req.url ?? '/', this.target);
      const upstream = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.writeHead(502).end());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Where the orchestrator serves `/api/internal/*`: its internal listener when it has one. */
export function orchestratorInternalUrl(orchestrator: RunningApp): string {
  const internal = internalListenerOf(orchestrator.app);
  return internal?.listening ? internal.url : orchestrator.url;
}

export interface TestMerchant {
  userId: string;
  customerId: string;
  merchantId: string;
  phone: string;
  pin: string;
  accounts: Record<string, string>;
}

async function post(
  url: string,
  body: unknown,
  serviceKey = callerKey('orchestrator'),
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'x-service-key': serviceKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * A merchant as registration leaves one (until the registration workflow lands): an auth user with
 * the MERCHANT role, its customer and merchant rows in the orchestrator, and a ledger wallet whose
 * accounts are recorded (when a ledger URL is given; otherwise made-up account ids).
 */
export async function createMerchant(
  sql: Client,
  urls: { auth?: string; ledger?: string; serviceKey?: string },
  phone: string,
  pin = '2580',
): Promise<TestMerchant> {
  // auth's user steps and the ledger's wallets are the orchestrator's routes
  const key = urls.serviceKey ?? callerKey('orchestrator');
  // Without auth the merchant exists in the directory only (nobody can log in as it): enough for
  // tests that only need the phone to belong to a merchant.
  let userId: string = randomUUID();
  if (urls.auth) {
    const idp = await post(`${urls.auth}/auth/internal/create-idp-user`, { phone, pin }, key);
    const local = await post(`${urls.auth}/auth/internal/create-local-user`, { idpUserId: idp.body.idpUserId, roles: ['MERCHANT'] }, key);
    if (local.status !== 201) throw new Error(`create-local-user ${local.status} ${JSON.stringify(local.body)}`);
    userId = local.body.id as string;
  }
  const customerId = randomUUID();
  const merchantId = randomUUID();
  let walletId: string = randomUUID();
  let accounts: Record<string, string> = { XAF: randomUUID(), XOF: randomUUID() };
  if (urls.ledger) {
    const wallet = await post(
      `${urls.ledger}/v1/internal/wallets`,
      { ownerType: 'MERCHANT', ownerId: merchantId, currencies: ['XAF', 'XOF'] },
      key,
    );
    if (wallet.status !== 201) throw new Error(`wallet ${wallet.status} ${JSON.stringify(wallet.body)}`);
    walletId = wallet.body.id as string;
    accounts = {};
    for (const a of wallet.body.accounts as { id: string; currency: string; accountType: string }[]) {
      if (!a.accountType.toLowerCase().includes('commission') && !accounts[a.currency]) accounts[a.currency] = a.id;
    }
  }
  await sql.query(
    `INSERT INTO orchestrator.customers (id, user_id, phone, role, wallet_id, registration_id) VALUES ($1, $2, $3, 'MERCHANT', $4, $5)`,
    [customerId, userId, phone, walletId, randomUUID()],
  );
  await sql.query(
    `INSERT INTO orchestrator.profiles (customer_id, first_name, last_name, country_code) VALUES ($1, 'Awa', 'Merchant', 'CM')`,
    [customerId],
  );
  for (const [currency, accountId] of Object.entries(accounts)) {
    await sql.query(
      `INSERT INTO orchestrator.ledger_accounts (account_id, wallet_id, customer_id, currency, purpose) VALUES ($1, $2, $3, $4, 'main')`,
      [accountId, walletId, customerId, currency],
    );
  }
  // The registration workflow marks a customer registered at its last step (when the schema has it).
  const registered = await sql.query(
    `SELECT 1 FROM information_schema.columns WHERE table_schema = 'orchestrator' AND table_name = 'customers' AND column_name = 'registered_at'`,
  );
  if (registered.rowCount) await sql.query(`UPDATE orchestrator.customers SET registered_at = now() WHERE id = $1`, [customerId]);
  await sql.query(`INSERT INTO orchestrator.merchants (id, customer_id, business_name, category) VALUES ($1, $2, $3, 'RETAIL')`, [
    merchantId,
    customerId,
    `Boutique ${phone.slice(-4)}`,
  ]);
  return { userId, customerId, merchantId, phone, pin, accounts };
}

/** The bootstrap administrator the platform tests create through auth. */
export const E2E_ADMIN = { phone: '+237699999001', pin: '4826' };
