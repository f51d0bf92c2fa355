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

/**
 * The dispatcher's own producer side of `webhooks`: the internal enqueue route, resends, replays and
 * the pending sweep. It fails fast while Redis is away (no offline buffering, and a deadline while a
 * connection is still opening), with 503 WEBHOOK_QUEUE_UNAVAILABLE, so a caller never waits for ever
 * and knows nothing was queued.
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
    const added = await this.withDeadline(this.queue.add(name, data, webhookJobOptions(jobId)));
    return added.id;
  }

  private async withDeadline<T>(work: Promise<T>): Promise<T> {
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
    } catch (error) {
      throw new AppException('WEBHOOK_QUEUE_UNAVAILABLE', undefined, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue.close().catch(() => undefined);
  }
}
