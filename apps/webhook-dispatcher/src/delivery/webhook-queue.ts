import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { type JobState, Queue, type RedisClient } from 'bullmq';
import { bullConnection, bullPrefix, withTimeout } from '@mm/platform';
import { QUEUES, WEBHOOK_JOBS, type WebhookDeliverJob, type WebhookResendJob, webhookJobOptions } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { throttledWarning } from '../common/throttled-warning';
import { WebhookDispatcherConfig } from '../webhook-dispatcher.config';

/** States in which a job will still run (or is running): its event is not lost. */
const LIVE_STATES = new Set<JobState | 'unknown'>(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children']);

/** The id of the job that runs an event's latest delivery run: the event id, then `<id>-resend-<n>`. */
export const resendJobId = (eventId: string, run: number): string => (run === 0 ? eventId : `${eventId}-resend-${run}`);

/** The inverse of resendJobId: the run a job id names for the event (0 for the event id itself), if any. */
export function runOfJob(eventId: string, jobId: string): number | undefined {
  const id = jobId.toLowerCase();
  if (id === eventId) return 0;
  const m = /^(.+)-resend-([1-9]\d{0,8})$/.exec(id);
  return m && m[1] === eventId ? Number(m[2]) : undefined;
}

/** ioredis's refusal of a command while the connection is not ready (enableOfflineQueue false): never sent. */
const OFFLINE_REFUSAL = /enableOfflineQueue options is false/;

/**
 * How a failed add ends for the caller. `sent` is whether the add was handed to a connection that
 * was ready. Certain that Redis never got the command (the connection was not ready, or ioredis
 * refused it at once because it had gone down meanwhile): WEBHOOK_QUEUE_UNAVAILABLE, nothing was
 * queued. Anything else (the deadline fired with the command written, the connection closed with the
 * command unanswered, an error reply) may have queued the job: WEBHOOK_QUEUE_UNCONFIRMED.
 */
export function enqueueFailureCode(sent: boolean, error: unknown): 'WEBHOOK_QUEUE_UNAVAILABLE' | 'WEBHOOK_QUEUE_UNCONFIRMED' {
  if (!sent) return 'WEBHOOK_QUEUE_UNAVAILABLE';
  return error instanceof Error && OFFLINE_REFUSAL.test(error.message) ? 'WEBHOOK_QUEUE_UNAVAILABLE' : 'WEBHOOK_QUEUE_UNCONFIRMED';
}

/**
 * The dispatcher's own producer side of `webhooks`: the internal enqueue route, resends, replays and
 * the pending sweep. It fails fast while Redis is away (no offline buffering, and a deadline on every
 * command). Its failures say whether the job may exist: 503 WEBHOOK_QUEUE_UNAVAILABLE when the add
 * never reached Redis (nothing was queued), 503 WEBHOOK_QUEUE_UNCONFIRMED when the deadline fired
 * with the add possibly in flight on a slow link (Redis may still run it later).
 */
@Injectable()
export class WebhookQueue implements OnModuleDestroy {
  private readonly logger = new Logger(WebhookQueue.name);
  private readonly queue: Queue;
  /** The queue's Redis connection, once BullMQ has made it. */
  private client?: RedisClient;

  constructor(private readonly config: WebhookDispatcherConfig) {
    this.queue = new Queue(QUEUES.webhooks, {
      // Neither buffered while disconnected nor re-sent after a reconnect: a job the caller was told
      // was not queued must not appear later (one already in Redis when the link dropped still may).
      connection: { ...bullConnection(config), enableOfflineQueue: false, autoResendUnfulfilledCommands: false },
      prefix: bullPrefix(config),
    });
    this.queue.on('error', throttledWarning(this.logger, 'webhook queue connection error'));
  }

  /** Job id = event id: enqueueing the same event twice while its job is kept is a no-op. */
  enqueue(job: WebhookDeliverJob): Promise<string> {
    return this.add(WEBHOOK_JOBS.deliver, job, job.envelope.id);
  }

  /** Queues delivery run number `run` (≥ 1) of a recorded event. */
  resend(eventId: string, run: number): Promise<string> {
    const data: WebhookResendJob = { eventId };
    return this.add(WEBHOOK_JOBS.resend, data, resendJobId(eventId, run));
  }

  /** 'live' while the job will still run, 'failed' when BullMQ gave up on it, 'gone' otherwise (missing or completed). */
  async jobFate(jobId: string): Promise<'live' | 'failed' | 'gone'> {
    let state: JobState | 'unknown';
    try {
      // A read (nothing to undo): any failure is WEBHOOK_QUEUE_UNAVAILABLE.
      state = await this.deadline(this.queue.getJobState(jobId));
    } catch (error) {
      throw new AppException('WEBHOOK_QUEUE_UNAVAILABLE', undefined, { cause: error });
    }
    if (LIVE_STATES.has(state)) return 'live';
    return state === 'failed' ? 'failed' : 'gone';
  }

  /** Adds the job under `jobId` (BullMQ keeps that id) and returns it. */
  private async add(name: string, data: object, jobId: string): Promise<string> {
    // Not sent yet: any failure until the add is handed to a ready connection queued nothing.
    let sent = false;
    try {
      // The connection object is resolved once; after that its state is read without waiting.
      this.client ??= await this.deadline(this.queue.getBackend().client);
      if (this.client.status !== 'ready') throw new Error(`Redis connection is ${this.client.status}`);
      sent = true;
      await this.deadline(this.queue.add(name, data, webhookJobOptions(jobId)));
      return jobId;
    } catch (error) {
      throw new AppException(enqueueFailureCode(sent, error), undefined, { cause: error });
    }
  }

  /** Stops waiting after WEBHOOK_ENQUEUE_TIMEOUT_MS; the command itself, if sent, is not recalled. */
  private deadline<T>(work: Promise<T>): Promise<T> {
    return withTimeout(work, this.config.WEBHOOK_ENQUEUE_TIMEOUT_MS, 'Redis');
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue.close().catch(() => undefined);
  }
}
