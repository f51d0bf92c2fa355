import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { WebhookQueue, resendJobId } from '../delivery/webhook-queue';
import type { EventStatus, ResendClaim } from '../events/event.types';
import { ReplayService } from '../events/replay.service';
import { WebhookEventsRepository } from '../events/webhook-events.repository';

export interface ResendAnswer {
  eventId: string;
  jobId: string;
  /** the key had already started this run: nothing new was queued */
  repeated: boolean;
}

/** Thrown inside the claim's transaction to roll it back when another request took the key first. */
class KeyTaken extends Error {}

/**
 * A resend that a staff member may send twice (a double click, a retry after a lost answer) and
 * still get one delivery run. The run is claimed and the key recorded in one transaction, with the
 * event's row locked: of two requests with one key, the second waits for the first and answers its
 * run; a key already used for another event is refused. A job Redis certainly did not get gives the
 * key back, so the same request sent again does the work; an unconfirmed one keeps it (the pending
 * sweep re-queues the run if its job never appears), so a retry does not start a second run.
 */
@Injectable()
export class IdempotentResendService {
  private readonly logger = new Logger(IdempotentResendService.name);

  constructor(
    private readonly db: DataSource,
    private readonly events: WebhookEventsRepository,
    private readonly queue: WebhookQueue,
    private readonly replay: ReplayService,
  ) {}

  async resend(eventId: string, idempotencyKey?: string): Promise<ResendAnswer> {
    if (!idempotencyKey) return { ...(await this.replay.resendOne(eventId)), repeated: false };
    const key = idempotencyKey.toLowerCase();
    const claimed = await this.claim(eventId, key);
    if ('jobId' in claimed) {
      if (claimed.eventId !== eventId) throw new AppException('WEBHOOK_RESEND_KEY_REUSED');
      return { eventId, jobId: claimed.jobId, repeated: true };
    }
    const claim = claimed;
    try {
      const jobId = await this.queue.resend(eventId, claim.run);
      this.logger.log({ msg: 'webhook event resent', eventId, jobId });
      return { eventId, jobId, repeated: false };
    } catch (error) {
      const unconfirmed = error instanceof AppException && error.code === 'WEBHOOK_QUEUE_UNCONFIRMED';
      if (!unconfirmed) {
        await this.events.undoResend(claim).catch(() => false);
        await this.db.query(`DELETE FROM webhooks.resend_requests WHERE idempotency_key = $1`, [key]).catch(() => undefined);
      }
      this.logger.warn({ msg: 'webhook resend not queued', eventId, run: claim.run, unconfirmed });
      throw error;
    }
  }

  /** Either the new run (`ResendClaim`) or the run this key started before (`{ eventId, jobId }`). */
  private async claim(eventId: string, key: string): Promise<ResendClaim | { eventId: string; jobId: string }> {
    for (;;) {
      const prior = await this.prior(key);
      if (prior) return prior;
      try {
        return await this.db.transaction(async (tx) => {
          const rows = await queryRows<{ resend_count: number; attempt_count: number; previous_status: EventStatus }>(
            tx,
            `UPDATE webhooks.events e
                SET resend_count = e.resend_count + 1, status = 'pending', updated_at = now()
               FROM (SELECT id, status FROM webhooks.events WHERE id = $1 FOR UPDATE) old
              WHERE e.id = old.id
              RETURNING e.resend_count, e.attempt_count, old.status AS previous_status`,
            [eventId],
          );
          if (rows.length === 0) throw new AppException('WEBHOOK_EVENT_NOT_FOUND');
          const run = rows[0].resend_count;
          const inserted = await queryRows<{ ok: number }>(
            tx,
            `INSERT INTO webhooks.resend_requests (idempotency_key, event_id, job_id) VALUES ($1, $2, $3)
             ON CONFLICT (idempotency_key) DO NOTHING RETURNING 1 AS ok`,
            [key, eventId, resendJobId(eventId, run)],
          );
          if (inserted.length === 0) throw new KeyTaken();
          return { eventId, run, previousStatus: rows[0].previous_status, attemptCount: rows[0].attempt_count };
        });
      } catch (error) {
        if (!(error instanceof KeyTaken)) throw error;
        // another request committed this key meanwhile: loop to read what it did
      }
    }
  }

  private async prior(key: string): Promise<{ eventId: string; jobId: string } | null> {
    const rows = await queryRows<{ event_id: string; job_id: string }>(
      this.db,
      `SELECT event_id, job_id FROM webhooks.resend_requests WHERE idempotency_key = $1`,
      [key],
    );
    return rows.length === 0 ? null : { eventId: rows[0].event_id, jobId: rows[0].job_id };
  }
}
