import { Injectable, Logger } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { WebhookQueue } from '../delivery/webhook-queue';
import { WebhookEventsRepository } from './webhook-events.repository';

const MAX_WINDOW_MS = 31 * 86_400_000;

/** Svix-style recovery: resend one event, every undelivered event of a window, or what a disabled endpoint held. */
@Injectable()
export class ReplayService {
  private readonly logger = new Logger(ReplayService.name);

  constructor(
    private readonly events: WebhookEventsRepository,
    private readonly queue: WebhookQueue,
  ) {}

  async resendOne(eventId: string): Promise<{ eventId: string; jobId: string }> {
    const run = await this.events.beginResend(eventId);
    const jobId = await this.queue.resend(eventId, run);
    this.logger.log({ msg: 'webhook event resent', eventId, jobId });
    return { eventId, jobId };
  }

  /** Failed or held events received in [from, to), optionally of one integration. */
  async resendUndelivered(from: Date, to: Date, integrationId?: string): Promise<{ eventIds: string[] }> {
    if (!(from.getTime() < to.getTime()) || to.getTime() - from.getTime() > MAX_WINDOW_MS) throw new AppException('INVALID_TIME_WINDOW');
    const ids = await this.events.undeliveredIn(from, to, integrationId);
    for (const id of ids) await this.resendOne(id);
    return { eventIds: ids };
  }

  async replayHeld(integrationId: string): Promise<number> {
    const ids = await this.events.heldFor(integrationId);
    for (const id of ids) await this.resendOne(id);
    return ids.length;
  }
}
