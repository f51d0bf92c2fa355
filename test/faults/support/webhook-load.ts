/**
 * The webhook side of a fault case: a partner's receiver on loopback (the example receiver of
 * examples/webhook-receiver, which verifies signatures and deduplicates by event id), the endpoint
 * registered at the dispatcher, and events enqueued on `webhooks` the way a producer (partners) does.
 */
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { QUEUES, WEBHOOK_JOBS, webhookJobOptions } from '@mm/contracts';
import { bullOptions } from '@mm/platform';
import { type WebhookReceiver, createWebhookReceiver } from '../../../examples/webhook-receiver/receiver';
import { REDIS_PREFIX } from './platform';

export interface WebhookSink {
  url: string;
  /** requests that passed the signature check, per event id (redeliveries included) */
  raw: Map<string, number>;
  /** events the receiver's handler ran for, per event id: after deduplication each must be 1 */
  handled: Map<string, number>;
  /** the `data` of each handled `order.paid`, by event id (which order, which transaction) */
  paid: Map<string, Record<string, unknown>>;
  /** requests refused (bad signature, stale timestamp …): must stay 0 */
  refused: number;
  /** the dispatcher hands the secret over when the endpoint is created */
  setSecret(secret: string): void;
  close(): Promise<void>;
}

export async function startSink(): Promise<WebhookSink> {
  let secret = '';
  const sink = { raw: new Map<string, number>(), handled: new Map<string, number>(), paid: new Map(), refused: 0 } as WebhookSink;
  const receiver: WebhookReceiver = createWebhookReceiver({
    secrets: () => [secret],
    handlers: {
      'order.paid': (e) => {
        sink.handled.set(e.id, (sink.handled.get(e.id) ?? 0) + 1);
        sink.paid.set(e.id, e.data);
      },
    },
    onDelivery: (d) => {
      if (d.status !== 200) sink.refused += 1;
      else if (d.eventId) sink.raw.set(d.eventId, (sink.raw.get(d.eventId) ?? 0) + 1);
    },
  });
  const port = await receiver.listen(0, '127.0.0.1');
  sink.url = `http://127.0.0.1:${port}/webhooks`;
  sink.setSecret = (s) => (secret = s);
  sink.close = () => receiver.close();
  return sink;
}

/** PUT the endpoint at the dispatcher (loopback receivers are allowed outside production). */
export async function registerEndpoint(dispatcherUrl: string, serviceKey: string, integrationId: string, sink: WebhookSink): Promise<void> {
  const res = await fetch(`${dispatcherUrl}/internal/webhooks/endpoints/${integrationId}`, {
    method: 'PUT',
    headers: { 'x-service-key': serviceKey, 'content-type': 'application/json' },
    body: JSON.stringify({ url: sink.url }),
  });
  const body = (await res.json()) as { secret?: string };
  if (res.status !== 200 || !body.secret) throw new Error(`endpoint: ${res.status} ${JSON.stringify(body)}`);
  sink.setSecret(body.secret);
}

export function webhookQueue(redisUrl: string): Queue {
  const queue = new Queue(QUEUES.webhooks, bullOptions({ REDIS_URL: redisUrl, REDIS_PREFIX } as never));
  queue.on('error', () => undefined); // a Redis outage is what some cases are about
  return queue;
}

export interface OrderPaidEnvelope {
  event: 'order.paid';
  id: string;
  createdAt: string;
  data: { orderId: string; transactionId: string; amount: number; currencyCode: string; paidAt: string };
}

/** An `order.paid` event as partners produces it: UUID v4 id, which is also the job id. */
export function orderPaid(id: string = randomUUID(), amount = 1_500): OrderPaidEnvelope {
  return {
    event: 'order.paid',
    id,
    createdAt: new Date().toISOString(),
    data: { orderId: randomUUID(), transactionId: `TX-${id.slice(0, 8)}`, amount, currencyCode: 'XAF', paidAt: new Date().toISOString() },
  };
}

export async function enqueue(queue: Queue, integrationId: string, envelope: OrderPaidEnvelope): Promise<void> {
  await queue.add(WEBHOOK_JOBS.deliver, { integrationId, envelope }, webhookJobOptions(envelope.id));
}

export async function waitUntil(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Delivered at least once, handled exactly once after deduplication: the counts of a case. */
export function sinkVerdict(sink: WebhookSink, ids: string[]) {
  const missing = ids.filter((id) => !sink.handled.has(id)).length;
  const handledTwice = ids.filter((id) => (sink.handled.get(id) ?? 0) > 1).length;
  const redeliveries = ids.reduce((n, id) => n + Math.max(0, (sink.raw.get(id) ?? 0) - 1), 0);
  return { received: ids.length - missing, missing, handledTwice, redeliveries };
}
