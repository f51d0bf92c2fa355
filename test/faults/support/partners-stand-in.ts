/**
 * Partners' hop of the money path, reduced to what the fault cases need: consume the ledger's
 * `transaction.completed` events and enqueue one `order.paid` webhook per transaction, with an
 * event id derived from the ledger event (so a re-delivered ledger event enqueues the same job, a
 * no-op). The Redis-outage case still uses it for every transfer; the real partners service, with
 * orders paid by QR token, is in the fault platform now (partners-kill.fault.ts), so that case can
 * move to it and this file go.
 */
import { createHash } from 'node:crypto';
import { type Job, type Queue, Worker } from 'bullmq';
import { LEDGER_EVENT_TYPES, QUEUES, type TransactionCompletedEvent, ledgerEventsOfJob } from '@mm/contracts';
import { bullOptions } from '@mm/platform';
import { REDIS_PREFIX } from './platform';
import { enqueue } from './webhook-load';

/** A UUID v4-shaped id fixed by the input (the partner API's webhook event ids are UUID v4). */
export function derivedEventId(source: string): string {
  const h = createHash('sha256').update(`order.paid:${source}`).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export interface PartnersStandIn {
  /** transaction id → webhook event id, for every ledger event turned into a webhook */
  readonly events: Map<string, string>;
  close(): Promise<void>;
}

export function startPartnersStandIn(redisUrl: string, webhooks: Queue, integrationId: string): PartnersStandIn {
  const events = new Map<string, string>();
  const worker = new Worker(
    QUEUES.ledgerEvents,
    async (job: Job) => {
      for (const { type, data } of ledgerEventsOfJob(job)) {
        if (type !== LEDGER_EVENT_TYPES.transactionCompleted) continue;
        const event = data as TransactionCompletedEvent;
        const id = derivedEventId(event.eventId);
        await enqueue(webhooks, integrationId, {
          event: 'order.paid',
          id,
          createdAt: event.occurredAt,
          data: {
            orderId: event.intentId,
            transactionId: event.transactionId,
            amount: event.amount,
            currencyCode: event.currency,
            paidAt: event.occurredAt,
          },
        });
        events.set(event.transactionId, id);
      }
    },
    { ...bullOptions({ REDIS_URL: redisUrl, REDIS_PREFIX } as never), concurrency: 8 },
  );
  worker.on('error', () => undefined); // Redis outages are what the cases inject
  return { events, close: () => worker.close() };
}
