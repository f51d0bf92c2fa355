/**
 * The partner side of a fault case, against the real partners service: an integration whose live
 * webhook endpoint is the case's receiver, a merchant connected to it, and orders whose QR tokens
 * customers then pay at the ledger (partners turns each payment's ledger event into `order.paid`).
 */
import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { createMerchant, type TestMerchant } from '../../e2e/partners-support';
import type { WebhookSink } from './webhook-load';
import { newPhone } from '../../support/phones';

async function send(
  method: string,
  url: string,
  expected: number,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 500)}`);
  return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
}

export interface PartnerFixture {
  integrationId: string;
  /** the live API key (Bearer) */
  apiKey: string;
  merchant: TestMerchant;
}

/**
 * An integration created by an operator (internal route) with the sink as its live endpoint, and a
 * merchant (directory rows and a ledger wallet) whose connection to it is requested and accepted.
 */
export async function connectPartner(
  urls: { partners: string; ledger: string },
  serviceKey: string,
  sql: Client,
  sink: WebhookSink,
): Promise<PartnerFixture> {
  const internal = { 'x-service-key': serviceKey };
  const created = await send(
    'POST',
    `${urls.partners}/internal/partners/integrations`,
    201,
    { name: 'Fault POS', technicalContactEmail: 'faults@pos.example', webhookUrl: sink.url, createdBy: 'fault-test' },
    internal,
  );
  const integrationId = (created.integration as { id: string }).id;
  const apiKey = (created.apiKeys as { live: { key: string } }).live.key;
  sink.setSecret((created.webhookSecrets as { live: string }).live);

  const merchant = await createMerchant(sql, { ledger: urls.ledger, serviceKey }, newPhone());
  const requested = await send(
    'POST',
    `${urls.partners}/partners-public/connections/request`,
    200,
    { merchantPhone: merchant.phone, scopes: ['orders.write', 'orders.read'] },
    { authorization: `Bearer ${apiKey}` },
  );
  await send(
    'POST',
    `${urls.partners}/internal/partners/merchants/${merchant.merchantId}/connections/${String(requested.connectionId)}/accept`,
    200,
    undefined,
    internal,
  );
  return { integrationId, apiKey, merchant };
}

export interface Order {
  orderId: string;
  qrToken: string;
  amount: number;
}

/** `count` live orders of the merchant, created through the partner API (an Idempotency-Key each). */
export async function createOrders(partnersUrl: string, fixture: PartnerFixture, count: number): Promise<Order[]> {
  const orders: Order[] = [];
  for (let n = 0; n < count; n++) {
    const body = await send(
      'POST',
      `${partnersUrl}/partners-public/orders`,
      201,
      { merchantId: fixture.merchant.merchantId, amount: 500 + (n % 7) * 100, externalReference: `fault-${n}` },
      { authorization: `Bearer ${fixture.apiKey}`, 'idempotency-key': randomUUID() },
    );
    orders.push({ orderId: String(body.orderId), qrToken: String(body.qrToken), amount: Number(body.amount) });
  }
  return orders;
}
