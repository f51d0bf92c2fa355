/**
 * The `webhooks` queue contract: what a producer (partners) enqueues and the dispatcher delivers.
 * Owned by the webhook-dispatcher service.
 *
 * A producer enqueues with
 *   queue.add(WEBHOOK_JOBS.deliver, job, webhookJobOptions(job.envelope.id))
 * on `QUEUES.webhooks`: the job id is the event id, so enqueueing one event twice is a no-op while
 * the job is kept, and the dispatcher's 24 h deduplication store covers the rest.
 */

/** Event types (docs/partners.md "5. Webhooks"). Planned types may appear; receivers answer 200 to unknown ones. */
export const WEBHOOK_EVENT_TYPES = { orderPaid: 'order.paid' } as const;

/** The body the partner receives (docs/partners.md "5. Webhooks"). */
export interface WebhookEnvelope<D extends object = Record<string, unknown>> {
  /** event type, e.g. `order.paid` */
  event: string;
  /** UUID v4, the receiver's idempotency key (also `Svc-Event-Id`) */
  id: string;
  /** ISO 8601, when the event was produced */
  createdAt: string;
  data: D;
}

/** `data` of `order.paid` (docs/partners.md "5. Webhooks"). */
export interface OrderPaidData {
  orderId: string;
  transactionId: string;
  amount: number;
  currencyCode: string;
  paidAt: string;
  externalReference?: string;
  description?: string;
}

/** Job names on the `webhooks` queue. */
export const WEBHOOK_JOBS = {
  /** a new event from a producer; job id = event id */
  deliver: 'deliver',
  /** an operator's resend of a recorded event (bypasses deduplication); job id = `<event id>-resend-<n>` */
  resend: 'resend',
} as const;

/** Data of a `deliver` job. */
export interface WebhookDeliverJob {
  /** the integration whose endpoint receives the event */
  integrationId: string;
  envelope: WebhookEnvelope;
}

/** Data of a `resend` job: the body is the one recorded at the first dispatch. */
export interface WebhookResendJob {
  eventId: string;
}

/** docs/partners.md "5. Webhooks": 7 retries after the first attempt. */
export const WEBHOOK_MAX_ATTEMPTS = 8;
/** Name of the dispatcher's backoff strategy (base configured in the dispatcher, 30 s doubling). */
export const WEBHOOK_BACKOFF_TYPE = 'webhook-exponential';

/** BullMQ job options every `webhooks` job must carry (structurally a BullMQ `JobsOptions`). */
export function webhookJobOptions(jobId: string): {
  jobId: string;
  attempts: number;
  backoff: { type: string };
  removeOnComplete: { age: number; count: number };
  removeOnFail: { age: number; count: number };
} {
  return {
    jobId,
    attempts: WEBHOOK_MAX_ATTEMPTS,
    backoff: { type: WEBHOOK_BACKOFF_TYPE },
    // The attempt log in PostgreSQL is the record, and the dispatcher's 24 h deduplication store
    // covers a re-enqueue once a job is gone: Redis keeps finished jobs briefly and boundedly.
    removeOnComplete: { age: 3600, count: 100_000 },
    removeOnFail: { age: 24 * 3600, count: 100_000 },
  };
}
