import { Injectable, Logger } from '@nestjs/common';
import { WEBHOOK_JOBS, type WebhookDeliverJob, type WebhookResendJob } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { isUuidV4 } from '@mm/platform';
import { signatureHeader } from '@mm/webhook-signature';
import { EndpointsService } from '../endpoints/endpoints.service';
import { WebhookTargetPolicy } from '../endpoints/webhook-target.policy';
import type { StoredEvent } from '../events/event.types';
import { WebhookEventsRepository } from '../events/webhook-events.repository';
import { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { DedupStore } from './dedup-store';
import { serializeEnvelope } from './envelope';
import { type SendResult, judgeAttempt } from './attempt-result';
import { type DeliveryOutcome, WebhookMetrics } from './webhook-metrics';
import { runOfJob } from './webhook-queue';
import { WebhookSender } from './webhook-sender';

/** `User-Agent: Svc-Webhooks/<version>` (docs/partners.md "5. Webhooks"). */
export const WEBHOOK_USER_AGENT = 'Svc-Webhooks/1.0';

/** The attempt to an endpoint whose secret this process cannot decrypt: nothing signed, nothing sent. */
const SECRET_UNREADABLE: SendResult = {
  error: 'secret: cannot be decrypted with the current key',
  errorCode: 'WEBHOOK_SECRET_UNREADABLE',
  latencyMs: 0,
};

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

/** A job BullMQ will not run again, as the worker saw it. */
export interface GivenUpJob {
  jobId: string;
  name: string;
  data: unknown;
  attemptsMade: number;
  reason: string;
}

/** The event a job delivers, when its data names one (a malformed job may not). */
export function eventIdOfJob(name: string, data: unknown): string | undefined {
  const d = data as { envelope?: { id?: unknown }; eventId?: unknown } | null | undefined;
  const id = name === WEBHOOK_JOBS.resend ? d?.eventId : d?.envelope?.id;
  return isUuidV4(id) ? id.toLowerCase() : undefined;
}

type GiveUpChange = 'failed' | 'recorded' | 'moved_on' | 'missing';

/** An event as its first-run job carries it, for recording when it never made it into the table. */
type UnrecordedEvent = { integrationId: string; eventType: string; body: string; createdAt: string };

/** The event a first-run job carries, ready to record, when its data is a well-formed envelope. */
function recordableEvent(name: string, data: unknown): UnrecordedEvent | undefined {
  if (name !== WEBHOOK_JOBS.deliver) return undefined;
  try {
    const job = data as WebhookDeliverJob;
    const { envelope, body } = serializeEnvelope(job);
    return { integrationId: job.integrationId, eventType: envelope.event, body, createdAt: envelope.createdAt };
  } catch {
    return undefined;
  }
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
    if (event.run > 0) return this.superseded(event, 0, job);
    return this.attempt(event, job);
  }

  /** An operator's resend: the recorded body, no deduplication (the resend is deliberate). */
  async resend(data: WebhookResendJob, job: JobContext): Promise<DeliveryOutcome> {
    if (job.attemptsMade === 0) this.metrics.queueLag.observe({ job: 'resend' }, Math.max(0, Date.now() - job.enqueuedAt) / 1000);
    const event = await this.events.find(data.eventId);
    if (!event) throw new AppException('WEBHOOK_EVENT_NOT_FOUND');
    const run = runOfJob(event.id, job.jobId);
    if (run === undefined) throw new AppException('INVALID_WEBHOOK_EVENT', `job ${job.jobId} names no delivery run of event ${event.id}`);
    if (run < event.run) return this.superseded(event, run, job);
    // Not recorded yet: the claim that queued this run cannot be seen (it only appears with its commit).
    if (run > event.run) throw new Error(`delivery run ${run} of the event is not recorded yet; retried`);
    return this.attempt(event, job);
  }

  /**
   * A job whose run is no longer the event's latest (a resend, recovery or replay began a newer run,
   * whose own job delivers): it sends nothing, so the partner never receives one event from two runs.
   */
  private superseded(event: StoredEvent, run: number, job: JobContext): DeliveryOutcome {
    this.metrics.outcomes.inc({ outcome: 'superseded' });
    this.logger.log({
      msg: 'webhook job superseded by a newer delivery run; nothing sent',
      eventId: event.id,
      jobId: job.jobId,
      run,
      latestRun: event.run,
    });
    return 'superseded';
  }

  /**
   * BullMQ gave up on a job without a recorded last attempt (an unexpected error, a permanent one).
   * Reads the event and run from the job (a malformed job may name none: then only logged and
   * counted) and hands over to markRunGivenUp. Never throws.
   */
  async giveUp(job: GivenUpJob): Promise<boolean> {
    const eventId = eventIdOfJob(job.name, job.data);
    const run = eventId === undefined ? undefined : runOfJob(eventId, job.jobId);
    const given = { jobId: job.jobId, reason: job.reason, attemptsMade: job.attemptsMade };
    if (eventId === undefined || run === undefined) return this.reportGivenUp({ eventId, job: job.name, ...given }, 'missing');
    return this.markRunGivenUp(eventId, run, given, run === 0 ? recordableEvent(job.name, job.data) : undefined);
  }

  /**
   * Run `run` of the event will not be tried again (its job was given up, as the worker or the
   * pending sweep saw it). The event becomes failed, so that the window resend selects it, only while
   * it is pending under that run (a newer resend run keeps going); `unrecorded`, the event as a
   * first-run job carries it, records it failed when it was never recorded (its ingest failed every
   * time). Logged as an error and counted once, by whichever caller (worker or pending sweep) made
   * that change, or here when there is no event to change; a run whose event moved on is only a
   * warning; when the database cannot be reached nothing is counted (the pending sweep, which finds
   * the event still pending, marks and counts it later). Returns true when this call counted it.
   * Never throws.
   */
  async markRunGivenUp(
    eventId: string,
    run: number,
    given: { jobId: string; reason: string; attemptsMade?: number },
    unrecorded?: UnrecordedEvent,
  ): Promise<boolean> {
    const fields = { eventId, job: run === 0 ? WEBHOOK_JOBS.deliver : WEBHOOK_JOBS.resend, ...given };
    let change: GiveUpChange;
    try {
      change = await this.events.markGivenUp(eventId, run, unrecorded);
    } catch (error) {
      this.logger.error({
        msg: 'webhook job given up but its event could not be marked failed (the pending sweep does it if the event was recorded)',
        ...fields,
        err: { message: (error as Error).message },
      });
      return false;
    }
    return this.reportGivenUp(fields, change);
  }

  private reportGivenUp(fields: Record<string, unknown>, change: GiveUpChange): boolean {
    if (change === 'moved_on') {
      this.logger.warn({
        msg: 'webhook job given up after its event moved on (delivered, held, failed or resent); nothing changed',
        ...fields,
      });
      return false;
    }
    this.metrics.outcomes.inc({ outcome: 'failed' });
    this.logger.error({
      msg: 'webhook job given up: event not delivered',
      ...fields,
      markedFailed: change !== 'missing',
      recordedNow: change === 'recorded',
    });
    return true;
  }

  private async attempt(event: StoredEvent, job: JobContext, enabledMeanwhile = false): Promise<DeliveryOutcome> {
    const eventId = event.id;

    const target = await this.endpoints.deliveryTarget(event.integrationId);
    if (target.kind === 'hold') {
      // No endpoint yet, or disabled: the event waits for a replay instead of burning its attempts.
      // Written only if the endpoint is still not enabled: an enable that committed after the read
      // above (its replay may already have passed this event) makes this attempt deliver instead.
      if (!(await this.events.holdWhileUnreachable(eventId, event.integrationId))) {
        if (enabledMeanwhile) throw new Error('webhook endpoint changed state during the attempt; retried');
        this.logger.log({ msg: 'webhook endpoint enabled during the attempt; delivering instead of holding', eventId });
        return this.attempt(event, job, true);
      }
      this.metrics.outcomes.inc({ outcome: 'held' });
      this.logger.warn({ msg: 'webhook event held', eventId, integrationId: event.integrationId, reason: target.reason });
      return 'held';
    }

    // Signed now, at each attempt: a retry half an hour later still passes a 5-minute tolerance.
    const attemptedAt = new Date();
    const t = Math.floor(attemptedAt.getTime() / 1000);
    // An unreadable secret is a failed attempt like any other (recorded, retried, counted towards the
    // endpoint's health), so that a lost key shows in the attempt log instead of failing unseen.
    const result = target.kind === 'secret_unreadable' ? SECRET_UNREADABLE : await this.sendSigned(target, event, t);
    const verdict = judgeAttempt(result);
    const { success } = verdict;
    const errorCode = verdict.success ? undefined : verdict.errorCode;
    this.metrics.attemptDuration.observe({ result: verdict.result }, result.latencyMs / 1000);

    const isLast = job.attemptsMade + 1 >= job.maxAttempts;
    // A failure that disables the endpoint holds the event, by the held rule recordAttempt applies.
    let disabledNow = false;
    if (success) {
      if (target.failing) await this.endpoints.recordSuccess(event.integrationId);
    } else {
      disabledNow = await this.endpoints.recordFailure(event.integrationId);
    }
    const { attemptNumber, status: nextStatus } = await this.events.recordAttempt({
      eventId,
      run: event.run,
      integrationId: event.integrationId,
      jobId: job.jobId,
      url: target.url,
      attemptedAt,
      signedAt: t,
      statusCode: result.statusCode,
      error: result.error,
      errorCode,
      latencyMs: result.latencyMs,
      excerpt: result.excerpt,
      success,
      nextStatus: success ? 'delivered' : isLast ? 'failed' : 'pending',
      hold: disabledNow,
    });
    if (disabledNow && nextStatus !== 'held') {
      this.logger.log({ msg: 'webhook endpoint enabled again during the attempt; the event is not held', eventId });
    }
    const logFields = {
      eventId,
      integrationId: event.integrationId,
      attemptNumber,
      jobAttempt: job.attemptsMade + 1,
      endpoint: new URL(target.url).origin,
      statusCode: result.statusCode,
      error: result.error,
      errorCode,
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

  /** The event's stored body, signed with the target's secrets at `t`, to its URL. */
  private sendSigned(target: { url: string; secrets: string[] }, event: StoredEvent, t: number): Promise<SendResult> {
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': WEBHOOK_USER_AGENT,
      'Svc-Signature': signatureHeader(target.secrets, event.body, t),
      'Svc-Event': event.eventType,
      'Svc-Event-Id': event.id,
      'Content-Length': String(Buffer.byteLength(event.body)),
    };
    return this.send(target.url, event.body, headers);
  }

  /**
   * Checks the URL against the SSRF policy on a fresh resolution (DNS rebinding), then POSTs to the
   * address checked. A refusal or a failed resolution is a failed attempt like any other: recorded
   * with its code, retried, and counted towards disabling the endpoint. DNS time counts in the
   * attempt's deadline.
   */
  private async send(url: string, body: string, headers: Record<string, string>): Promise<SendResult> {
    const started = performance.now();
    const timeoutMs = this.config.WEBHOOK_TIMEOUT_MS;
    const route = await this.targets.routeForSend(url, timeoutMs);
    const spent = Math.round(performance.now() - started);
    if (!route.ok) return { error: route.reason, errorCode: route.code, latencyMs: spent };
    const result = await this.sender.send(url, body, headers, Math.max(1, timeoutMs - spent), route.pinned);
    return { ...result, latencyMs: result.latencyMs + spent };
  }
}
