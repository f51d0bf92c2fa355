import { Injectable, Logger } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { WebhookQueue } from '../delivery/webhook-queue';
import { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import type { EventStatus, ResendClaim } from './event.types';
import { WebhookEventsRepository } from './webhook-events.repository';

const MAX_WINDOW_MS = 31 * 86_400_000;

/** What a recovery sends again: failed after all attempts, or held. */
const UNDELIVERED: EventStatus[] = ['failed', 'held'];

export interface ResendWindow {
  from: Date;
  to: Date;
  integrationId?: string;
  /** continue after this event (the last id of the previous, truncated answer) */
  after?: string;
}

/** Svix-style recovery: resend one event, every undelivered event of a window, or what a disabled endpoint held. */
@Injectable()
export class ReplayService {
  private readonly logger = new Logger(ReplayService.name);

  constructor(
    private readonly config: WebhookDispatcherConfig,
    private readonly events: WebhookEventsRepository,
    private readonly queue: WebhookQueue,
  ) {}

  /**
   * One more delivery run, whatever the event's state: the break-glass resend of the `ops` key
   * without an idempotency key (a run still going on is superseded: its job sends nothing more).
   * The event is marked pending first (so the run's job always finds it so).
   * When Redis certainly did not get the job (503 WEBHOOK_QUEUE_UNAVAILABLE) the event is put back as
   * it was: the window resend and the replay of a re-enabled endpoint select it again. When the add
   * may still reach Redis (503 WEBHOOK_QUEUE_UNCONFIRMED: the deadline fired on a slow link) it is
   * left pending under the new run: putting it back would invite a second resend while the first job
   * may still run. If that job never appears, the pending sweep (which looks it up by its id) queues
   * the event again.
   */
  async resendOne(eventId: string): Promise<{ eventId: string; jobId: string }> {
    const jobId = await this.queueRun(await this.events.beginResend(eventId));
    return { eventId, jobId };
  }

  /**
   * One more run of an event still in one of `from` (failed, held), as resendOne does; false, with
   * nothing queued, when another caller got to it first (it is pending under that caller's run).
   */
  private async replayOne(eventId: string, from: EventStatus[]): Promise<boolean> {
    const claim = await this.events.beginReplay(eventId, from);
    if (!claim) return false;
    await this.queueRun(claim);
    return true;
  }

  private async queueRun(claim: ResendClaim): Promise<string> {
    const { eventId } = claim;
    let jobId: string;
    try {
      jobId = await this.queue.resend(eventId, claim.run);
    } catch (error) {
      // Unconfirmed: the job may still reach Redis and run, so the event stays pending under the new run.
      const unconfirmed = error instanceof AppException && error.code === 'WEBHOOK_QUEUE_UNCONFIRMED';
      const restored = unconfirmed ? false : await this.events.undoResend(claim).catch(() => false);
      this.logger.warn({
        msg: unconfirmed
          ? 'webhook resend not confirmed by Redis; the event stays pending under the new run (the pending sweep re-queues it if its job never appears)'
          : 'webhook resend not queued; the event keeps its previous state',
        eventId,
        run: claim.run,
        previousStatus: claim.previousStatus,
        restored,
        err: { message: ((error as AppException).details?.cause as Error | undefined)?.message ?? (error as Error).message },
      });
      throw error;
    }
    this.logger.log({ msg: 'webhook event resent', eventId, jobId });
    return jobId;
  }

  /**
   * Failed or held events received in [from, to), optionally of one integration, at most
   * WEBHOOK_RESEND_BATCH_MAX queued per call: `truncated` says the window holds more, to be asked
   * for with `after` = the last id answered. An event that another recovery or replay claims between
   * the selection and its own claim is left to that one and not answered; the page goes on after it,
   * so a truncated answer always names WEBHOOK_RESEND_BATCH_MAX events.
   */
  async resendUndelivered(window: ResendWindow): Promise<{ eventIds: string[]; truncated: boolean }> {
    const { from, to } = window;
    if (!(from.getTime() < to.getTime()) || to.getTime() - from.getTime() > MAX_WINDOW_MS) throw new AppException('INVALID_TIME_WINDOW');
    const max = this.config.WEBHOOK_RESEND_BATCH_MAX;
    const queued: string[] = [];
    let after = window.after;
    for (;;) {
      const want = max - queued.length;
      const { ids, afterFound } = await this.events.undeliveredPage({ ...window, after, statuses: UNDELIVERED }, want + 1);
      if (!afterFound) throw new AppException('WEBHOOK_EVENT_NOT_FOUND', 'The event named by `after` does not exist');
      const batch = ids.slice(0, want);
      for (const id of batch) if (await this.replayOne(id, UNDELIVERED)) queued.push(id);
      if (ids.length <= want) return { eventIds: queued, truncated: false };
      if (queued.length === max) return { eventIds: queued, truncated: true };
      after = batch[batch.length - 1];
    }
  }

  /**
   * Every held event of the integration, page by page (each page continues after the last one);
   * answers how many this call queued (an event another caller claimed first is not counted).
   */
  async replayHeld(integrationId: string): Promise<number> {
    const page = this.config.WEBHOOK_RESEND_BATCH_MAX;
    let replayed = 0;
    let after: string | undefined;
    for (;;) {
      const { ids } = await this.events.undeliveredPage({ statuses: ['held'], integrationId, after }, page);
      for (const id of ids) if (await this.replayOne(id, ['held'])) replayed += 1;
      if (ids.length < page) return replayed;
      after = ids[ids.length - 1];
    }
  }
}
