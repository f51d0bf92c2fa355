import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { type JobState, Queue } from 'bullmq';
import { bullConnection, bullPrefix } from '@mm/platform';
import { QUEUES, WEBHOOK_JOBS, type WebhookDeliverJob, type WebhookResendJob, webhookJobOptions } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { WebhookDispatcherConfig } from '../webhook-dispatcher.config';

/** States in which a job will still run (or is running): its event is not lost. */
const LIVE_STATES = new Set<JobState | 'unknown'>(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children']);

/** The id of the job that runs an event's latest delivery run: the event id, then `<id>-resend-<n>`. */
export const resendJobId = (eventId: string, run: number): string => (run === 0 ? eventId : `${eventId}-resend-${run}`);

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
  private lastConnectionWarning = 0;

  constructor(private readonly config: WebhookDispatcherConfig) {
    this.queue = new Queue(QUEUES.webhooks, {
      // Neither buffered while disconnected nor re-sent after a reconnect: a job the caller was told
      // was not queued must not appear later (one already in Redis when the link dropped still may).
      connection: { ...bullConnection(config), enableOfflineQueue: false, autoResendUnfulfilledCommands: false },
      prefix: bullPrefix(config),
    });
    this.queue.on('error', (error: Error) => {
      // An unhandled 'error' event would end the process; one line per 30 s while Redis stays away.
      if (Date.now() - this.lastConnectionWarning > 30_000) {
        this.lastConnectionWarning = Date.now();
        this.logger.warn({ msg: 'webhook queue connection error', err: { message: error.message } });
      }
    });
  }

  /** Job id = event id: enqueueing the same event twice while its job is kept is a no-op. */
  async enqueue(job: WebhookDeliverJob): Promise<string> {
    const id = await this.add(WEBHOOK_JOBS.deliver, job, job.envelope.id);
    return id ?? job.envelope.id;
  }

  /** Queues delivery run number `run` (≥ 1) of a recorded event. */
  async resend(eventId: string, run: number): Promise<string> {
    const data: WebhookResendJob = { eventId };
    const jobId = resendJobId(eventId, run);
    return (await this.add(WEBHOOK_JOBS.resend, data, jobId)) ?? jobId;
  }

  /** 'live' while the job will still run, 'failed' when BullMQ gave up on it, 'gone' otherwise (missing or completed). */
  async jobFate(jobId: string): Promise<'live' | 'failed' | 'gone'> {
    const state = await this.withDeadline(this.queue.getJobState(jobId));
    if (LIVE_STATES.has(state)) return 'live';
    return state === 'failed' ? 'failed' : 'gone';
  }

  private async add(name: string, data: object, jobId: string): Promise<string | undefined> {
    // Not sent yet: any failure until the add is handed to a ready connection queued nothing.
    let sent = false;
    try {
      const client = await this.raceDeadline(this.queue.getBackend().client);
      if (client.status !== 'ready') throw new Error(`Redis connection is ${client.status}`);
      sent = true;
      const added = await this.raceDeadline(this.queue.add(name, data, webhookJobOptions(jobId)));
      return added.id;
    } catch (error) {
      throw new AppException(enqueueFailureCode(sent, error), undefined, { cause: error });
    }
  }

  /** A read (nothing to undo): any failure is WEBHOOK_QUEUE_UNAVAILABLE. */
  private async withDeadline<T>(work: Promise<T>): Promise<T> {
    try {
      return await this.raceDeadline(work);
    } catch (error) {
      throw new AppException('WEBHOOK_QUEUE_UNAVAILABLE', undefined, { cause: error });
    }
  }

  /** Stops waiting after WEBHOOK_ENQUEUE_TIMEOUT_MS; the command itself, if sent, is not recalled. */
  private async raceDeadline<T>(work: Promise<T>): Promise<T> {
    // The loser of the race must not become an unhandled rejection.
    work.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer from Redis within ${this.config.WEBHOOK_ENQUEUE_TIMEOUT_MS} ms`)),
        this.config.WEBHOOK_ENQUEUE_TIMEOUT_MS,
      );
    });
    try {
      return await Promise.race([work, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue.close().catch(() => undefined);
  }
}
