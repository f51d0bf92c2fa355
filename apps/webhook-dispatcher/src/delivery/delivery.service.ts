import { Injectable, Logger } from '@nestjs/common';
import type { WebhookDeliverJob, WebhookResendJob } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { signatureHeader } from '@mm/webhook-signature';
import { EndpointsService } from '../endpoints/endpoints.service';
import { WebhookTargetPolicy } from '../endpoints/webhook-target.policy';
import type { EventStatus, StoredEvent } from '../events/event.types';
import { WebhookEventsRepository } from '../events/webhook-events.repository';
import { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { DedupStore } from './dedup-store';
import { serializeEnvelope } from './envelope';
import { type AttemptResult, type DeliveryOutcome, WebhookMetrics } from './webhook-metrics';
import { type SendResult, WebhookSender } from './webhook-sender';

/** `User-Agent: Svc-Webhooks/<version>` (spec 1). */
export const WEBHOOK_USER_AGENT = 'Svc-Webhooks/1.0';

/** What the delivery needs to know of the BullMQ job running it. */
export interface JobContext {
  jobId: string;
  /** failed attempts of this job so far (0 on the first) */
  attemptsMade: number;
  maxAttempts: number;
  /** ms epoch of the enqueue */
  enqueuedAt: number;
}

/** Thrown so that BullMQ schedules the next attempt (or records the job as failed after the last). */
export class DeliveryAttemptFailed extends Error {
  override name = 'DeliveryAttemptFailed';
}

/** A job BullMQ will not run again, as the worker or the pending sweep saw it. */
export interface GivenUpJob {
  jobId: string;
  name: string;
  data: unknown;
  attemptsMade: number;
  reason: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The event a job delivers, when its data names one (a malformed job may not). */
export function eventIdOfJob(name: string, data: unknown): string | undefined {
  const d = data as { envelope?: { id?: unknown }; eventId?: unknown } | null | undefined;
  const id = name === 'resend' ? d?.eventId : d?.envelope?.id;
  return typeof id === 'string' && UUID.test(id) ? id.toLowerCase() : undefined;
}

/**
 * One attempt of one event: dedup claim (first run only), record the event, sign at send time,
 * POST, log the attempt and move the event's state. A failed attempt throws so BullMQ retries.
 */
@Injectable()
export class DeliveryService {
  private readonly logger = new Logger(DeliveryService.name);

  constructor(
    private readonly config: WebhookDispatcherConfig,
    private readonly events: WebhookEventsRepository,
    private readonly endpoints: EndpointsService,
    private readonly dedup: DedupStore,
    private readonly sender: WebhookSender,
    private readonly metrics: WebhookMetrics,
    private readonly targets: WebhookTargetPolicy,
  ) {}

  async deliverNew(data: WebhookDeliverJob, job: JobContext): Promise<DeliveryOutcome> {
    const { envelope, body } = serializeEnvelope(data);
    if (job.attemptsMade === 0) {
      this.metrics.queueLag.observe({ job: 'deliver' }, Math.max(0, Date.now() - job.enqueuedAt) / 1000);
      // The token names this delivery run: its own retries (or a stalled re-run) find it and go on.
      const claim = await this.dedup.claim(envelope.id, `${job.jobId}@${job.enqueuedAt}`);
      if (claim === 'duplicate') {
        this.metrics.outcomes.inc({ outcome: 'duplicate' });
        this.logger.log({
          msg: 'webhook event already dispatched within the deduplication window; skipped',
          eventId: envelope.id,
          jobId: job.jobId,
        });
        return 'duplicate';
      }
    }
    const event = await this.events.ingest({
      id: envelope.id,
      integrationId: data.integrationId,
      eventType: envelope.event,
      body,
      createdAt: envelope.createdAt,
    });
    return this.attempt(event, job);
  }

  /** An operator's resend: the recorded body, no deduplication (the resend is deliberate). */
  async resend(data: WebhookResendJob, job: JobContext): Promise<DeliveryOutcome> {
    if (job.attemptsMade === 0) this.metrics.queueLag.observe({ job: 'resend' }, Math.max(0, Date.now() - job.enqueuedAt) / 1000);
    const event = await this.events.find(data.eventId);
    if (!event) throw new AppException('WEBHOOK_EVENT_NOT_FOUND');
    return this.attempt(event, job);
  }

  /**
   * BullMQ gave up on a job without a recorded last attempt (an unexpected error, a permanent one,
   * too many stalls): the event, when recorded and still pending, becomes failed so that the window
   * resend selects it; an error line names it and the failed outcome is counted. Never throws.
   */
  async giveUp(job: GivenUpJob, options: { onlyIfMarked?: boolean } = {}): Promise<boolean> {
    const eventId = eventIdOfJob(job.name, job.data);
    let markedFailed = false;
    try {
      if (eventId) markedFailed = await this.events.markGivenUp(eventId);
    } catch (error) {
      this.logger.error({
        msg: 'webhook event given up but not marked failed (the pending sweep retries)',
        eventId,
        err: { message: (error as Error).message },
      });
    }
    // The sweep (possibly on several dispatchers at once) reports only the event it marked itself.
    if (options.onlyIfMarked && !markedFailed) return false;
    this.metrics.outcomes.inc({ outcome: 'failed' });
    this.logger.error({
      msg: 'webhook job given up: event not delivered',
      eventId,
      jobId: job.jobId,
      job: job.name,
      attemptsMade: job.attemptsMade,
      reason: job.reason,
      markedFailed,
    });
    return markedFailed;
  }

  private async attempt(event: StoredEvent, job: JobContext): Promise<DeliveryOutcome> {
    const eventId = event.id;

    const target = await this.endpoints.deliveryTarget(event.integrationId);
    if (target.kind === 'hold') {
      // No endpoint yet, or disabled: the event waits for a replay instead of burning its attempts.
      await this.events.setStatus(eventId, 'held');
      this.metrics.outcomes.inc({ outcome: 'held' });
      this.logger.warn({ msg: 'webhook event held', eventId, integrationId: event.integrationId, reason: target.reason });
      return 'held';
    }

    // Signed now, at each attempt: a retry half an hour later still passes a 5-minute tolerance.
    const attemptedAt = new Date();
    const t = Math.floor(attemptedAt.getTime() / 1000);
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': WEBHOOK_USER_AGENT,
      'Svc-Signature': signatureHeader(target.secrets, event.body, t),
      'Svc-Event': event.eventType,
      'Svc-Event-Id': event.id,
      'Content-Length': String(Buffer.byteLength(event.body)),
    };
    const result = await this.send(target.url, event.body, headers);
    const success = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
    const kind: AttemptResult = success
      ? 'success'
      : result.statusCode !== undefined
        ? 'http_error'
        : result.error === 'timeout'
          ? 'timeout'
          : result.error?.startsWith('refused:')
            ? 'refused'
            : 'network_error';
    this.metrics.attemptDuration.observe({ result: kind }, result.latencyMs / 1000);

    const isLast = job.attemptsMade + 1 >= job.maxAttempts;
    let nextStatus: EventStatus;
    if (success) {
      if (target.failing) await this.endpoints.recordSuccess(event.integrationId);
      nextStatus = 'delivered';
    } else {
      const disabled = await this.endpoints.recordFailure(event.integrationId);
      nextStatus = disabled ? 'held' : isLast ? 'failed' : 'pending';
    }
    const attemptNumber = await this.events.recordAttempt({
      eventId,
      jobId: job.jobId,
      url: target.url,
      attemptedAt,
      signedAt: t,
      statusCode: result.statusCode,
      error: result.error,
      latencyMs: result.latencyMs,
      excerpt: result.excerpt,
      success,
      nextStatus,
    });
    const logFields = {
      eventId,
      integrationId: event.integrationId,
      attemptNumber,
      jobAttempt: job.attemptsMade + 1,
      endpoint: new URL(target.url).origin,
      statusCode: result.statusCode,
      error: result.error,
      latencyMs: result.latencyMs,
    };

    if (nextStatus === 'delivered' || nextStatus === 'held') {
      this.metrics.outcomes.inc({ outcome: nextStatus });
      if (nextStatus === 'delivered') this.logger.log({ msg: 'webhook delivered', ...logFields });
      return nextStatus;
    }
    this.metrics.outcomes.inc({ outcome: isLast ? 'failed' : 'retry_scheduled' });
    if (isLast) this.logger.error({ msg: 'webhook delivery failed after all attempts', ...logFields });
    else this.logger.warn({ msg: 'webhook attempt failed; retry scheduled', ...logFields });
    throw new DeliveryAttemptFailed(result.error ?? `receiver answered ${result.statusCode}`);
  }

  /**
   * Checks the URL against the SSRF policy on a fresh resolution (DNS rebinding), then POSTs to the
   * address checked. A refusal is a failed attempt like any other: retried, logged, and counted
   * towards disabling the endpoint. DNS time counts in the attempt's deadline.
   */
  private async send(url: string, body: string, headers: Record<string, string>): Promise<SendResult> {
    const started = performance.now();
    const timeoutMs = this.config.WEBHOOK_TIMEOUT_MS;
    const route = await this.targets.routeForSend(url, timeoutMs);
    const spent = Math.round(performance.now() - started);
    if (!route.ok) return { error: route.reason, latencyMs: spent };
    const result = await this.sender.send(url, body, headers, Math.max(1, timeoutMs - spent), route.pinned);
    return { ...result, latencyMs: result.latencyMs + spent };
  }
}
